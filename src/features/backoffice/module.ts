import { openPlatformCertifier } from '../../adapters/crypto/platform-roots.ts';
import { TenantKeyStore } from '../../adapters/crypto/tenant-key-store.ts';
import { backupFolderAt } from '../../adapters/fs/backup-folder.ts';
import { localDiskSpace } from '../../adapters/fs/disk-space.ts';
import { SqlAgentStore } from '../../adapters/sql/backoffice/sql-agent-store.ts';
import { SqlBackupStore } from '../../adapters/sql/backoffice/sql-backup-store.ts';
import { SqlComplianceStore } from '../../adapters/sql/backoffice/sql-compliance-store.ts';
import { SqlIncidentStore } from '../../adapters/sql/backoffice/sql-incident-store.ts';
import { SqlOpsViews } from '../../adapters/sql/backoffice/sql-ops-views.ts';
import { SqlOrgStore } from '../../adapters/sql/backoffice/sql-org-store.ts';
import { SqlRetentionStore } from '../../adapters/sql/backoffice/sql-retention-store.ts';
import { ACCOUNT_TIMELINE_SOURCES } from '../../adapters/sql/holder-data.ts';
import { holderRecordsOf } from '../../adapters/sql/holder-records.ts';
import { SqlCertificateAuthorityStore } from '../../adapters/sql/kernel/sql-certificate-authority-store.ts';
import { SqlKernelViews } from '../../adapters/sql/kernel/sql-kernel-views.ts';
import { SqlSigningKeyStore } from '../../adapters/sql/kernel/sql-signing-key-store.ts';
import type { Job } from '../../app/jobs.ts';
import type { Context, Replica } from '../../app/module.ts';
import { defineModule } from '../../app/module.ts';
import type { ApprovalDesk } from '../../http/admin/approval-desk.ts';
import type { RouteGroup } from '../../http/route.ts';
import type { AgentStore } from '../../ports/agent-store.ts';
import type { BackupFolder } from '../../ports/backup-folder.ts';
import type { BackupStore } from '../../ports/backup-store.ts';
import type { ComplianceStore } from '../../ports/compliance-store.ts';
import type { DiskSpace } from '../../ports/disk-space.ts';
import type { IncidentStore } from '../../ports/incident-store.ts';
import type { KernelViews } from '../../ports/kernel-views.ts';
import type { KeyStore } from '../../ports/key-store.ts';
import type { OpsViews } from '../../ports/ops-views.ts';
import type { OrgStore } from '../../ports/org-store.ts';
import type { RetentionStore } from '../../ports/retention-store.ts';
import { approvalsModule } from '../approvals/module.ts';
import { depositsModule } from '../deposits/module.ts';
import { issuanceModule } from '../issuance/module.ts';
import { membershipModule } from '../membership/module.ts';
import { offersModule } from '../offers/module.ts';
import { walletModule } from '../wallet/module.ts';
import { registerDeskActions } from './approvals/group.ts';
import { analyticsGroup } from './audit/analytics-group.ts';
import type { AuditLogReader } from './audit/audit-reader.ts';
import { auditGroup } from './audit/group.ts';
import { complianceGroup } from './compliance/group.ts';
import { credentialsGroup } from './credentials/group.ts';
import { opsGroup } from './ops/group.ts';
import { buildOrgService, orgsGroup } from './orgs/group.ts';
import type { OrgService } from './orgs/org-service.ts';
import { peopleGroup } from './people/group.ts';
import { sessionGroup } from './session/group.ts';
import { SubjectTimeline } from './session/timeline.ts';

/** What one back-office group builds: its routes, and the jobs that keep its data in order. */
export interface GroupBuild {
  group: RouteGroup;
  /** A group of another plane the same services answer (compliance's console view). */
  console?: RouteGroup;
  jobs?: Job[];
}

/**
 * The back office's stores, built here, the module's wiring, once: its read models and its own
 * tables. What other modules own it reaches through their services (ctx.use).
 */
export interface BackofficeStores {
  orgs: OrgStore;
  compliance: ComplianceStore;
  incidents: IncidentStore;
  retention: RetentionStore;
  ops: OpsViews;
  agents: AgentStore;
  backups: BackupStore;
}

/** What a restore drill reads of the service started on a restored copy (ops/backups.ts). */
export interface ReplicaReads {
  audit: AuditLogReader;
  /** The copy's kernel views (its keys that sign). */
  kernel: KernelViews;
  /** The copy's signing keys, opened with this deployment's vault, clock and certifier. */
  keys: KeyStore;
  /** The copy's platform roots, each that holds a key made to sign where this deployment keeps keys; null under an operator's chain. */
  roots(): Promise<{ checked: number; problems: string[] } | null>;
}

/** The restored copy's platform roots, opened where this deployment keeps keys, each made to sign. */
async function drillRoots(ctx: Context, store: SqlCertificateAuthorityStore) {
  if (!ctx.roots) return null;
  if ((await store.list()).length === 0) return { checked: 0, problems: ['the copy holds no platform root'] };
  const opts = { store, backend: ctx.keyBackend, clock: ctx.clock, urls: ctx.urls };
  try {
    const certifier = await openPlatformCertifier({
      ...opts,
      publicUrl: ctx.config.publicUrl,
      platformName: ctx.config.platformName,
    });
    return await certifier.drill();
  } catch (err) {
    return { checked: 0, problems: [`the platform roots: ${err instanceof Error ? err.message : String(err)}`] };
  }
}

/** The files the operations group reads and writes, through their ports (adapters/fs/). */
export interface BackofficeFiles {
  /** The backup folder (OPENRAIL_BACKUP_DIR). */
  backups: BackupFolder;
  /** The disk under the data folder, for the health check. */
  disk: DiskSpace;
}

/** What every group builds on: the approval desk its four-eyes actions register with, the stores, the files, the organisations. */
export interface Backoffice {
  desk: ApprovalDesk;
  stores: BackofficeStores;
  files: BackofficeFiles;
  orgs: OrgService;
  /** A subject's timeline, composed from its owners' views (session/timeline.ts). */
  timeline: SubjectTimeline;
  /** The reads a restore drill makes, on the database of a replica (Context.replicas). */
  readsOn(replica: Replica): ReplicaReads;
}

/** A group's builder. */
export type GroupBuilder = (ctx: Context, office: Backoffice) => Promise<GroupBuild>;

const GROUPS: readonly GroupBuilder[] = [
  auditGroup,
  analyticsGroup,
  orgsGroup,
  peopleGroup,
  sessionGroup,
  credentialsGroup,
  complianceGroup,
  opsGroup,
];

const holderRecords = holderRecordsOf('backoffice');

/**
 * The operator back office (docs/backoffice.md): every group under /api/admin/* that is not a
 * feature's own (partners and integration keep theirs), built on the admin kit (http/admin/: the
 * kit, the role matrix, the desk's contract). Its groups register the actions that need a second
 * operator with the one desk (the approvals module). A new group follows the recipe in
 * docs/architecture.md, "A new back-office group".
 */
export const backofficeModule = defineModule({
  name: 'backoffice',
  groups: [
    'admin-audit',
    'admin-analytics',
    'admin-orgs',
    'admin-people',
    'admin-session',
    'admin-credentials',
    'admin-compliance',
    'console-compliance',
    'admin-ops',
    'console-ops',
  ],
  owns: [
    SqlOrgStore,
    SqlComplianceStore,
    SqlIncidentStore,
    SqlRetentionStore,
    SqlOpsViews,
    SqlAgentStore,
    SqlBackupStore,
    holderRecords,
  ],
  holderRecords,
  async build(ctx) {
    const stores: BackofficeStores = {
      orgs: ctx.store(SqlOrgStore),
      compliance: ctx.store(SqlComplianceStore),
      incidents: ctx.store(SqlIncidentStore),
      retention: ctx.store(SqlRetentionStore),
      ops: ctx.store(SqlOpsViews),
      agents: ctx.store(SqlAgentStore),
      backups: ctx.store(SqlBackupStore),
    };
    const desk = await ctx.use(approvalsModule);
    await registerDeskActions(ctx, desk);
    const office: Backoffice = {
      desk,
      stores,
      files: { backups: backupFolderAt(ctx.config.backupDir), disk: localDiskSpace },
      orgs: await buildOrgService(ctx, stores),
      timeline: new SubjectTimeline({
        kernel: ctx.views,
        issuance: ctx.viewsOf(issuanceModule),
        offers: ctx.viewsOf(offersModule),
        wallet: ctx.viewsOf(walletModule),
        membership: ctx.viewsOf(membershipModule),
        deposits: ctx.viewsOf(depositsModule),
        accountSources: ACCOUNT_TIMELINE_SOURCES,
      }),
      readsOn: (replica) => {
        const kernel = replica.store(SqlKernelViews);
        return {
          audit: kernel,
          kernel,
          keys: new TenantKeyStore(replica.store(SqlSigningKeyStore), ctx.keyBackend, ctx.clock, ctx.certifier),
          roots: () => drillRoots(ctx, replica.store(SqlCertificateAuthorityStore)),
        };
      },
    };
    const built = await Promise.all(GROUPS.map((build) => build(ctx, office)));
    return {
      services: {},
      routes: () => built.flatMap((b) => (b.console ? [b.group, b.console] : [b.group])),
      jobs: built.flatMap((b) => b.jobs ?? []),
    };
  },
});
