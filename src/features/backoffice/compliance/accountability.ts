import type { Actor } from '../../../core/actor.ts';
import type { AuditEntry } from '../../../core/audit-chain.ts';
import type { Clock } from '../../../core/clock.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { Ids } from '../../../core/ids.ts';
import type { PageWindow } from '../../../core/page.ts';
import { iso } from '../../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import type { ReciprocalApprovals } from '../../../ports/approvals-views.ts';
import { type AttestationRecord, type ComplianceStore, ROLE_ACTIONS } from '../../../ports/compliance-store.ts';
import type { OperatorRecord, OperatorRole } from '../../../ports/operator-store.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';

/**
 * Roles one person should not hold together (docs/backoffice/compliance.md, "Role separation"):
 * the auditor checks what the others do, so nobody who acts also audits.
 */
export const SEPARATED_ROLES: readonly (readonly [OperatorRole, OperatorRole])[] = [
  ['auditor', 'owner'],
  ['auditor', 'ops'],
  ['auditor', 'support'],
  ['auditor', 'tenant-admin'],
];

/** The most operators, and reciprocal pairs, one report reads. */
export const REPORT_MAX = 2000;
const OPERATOR_PAGE = 200;
/** Statements the programme overview lists, at most. */
const STATEMENTS_SHOWN = 100;
/** Operators named per statement as not having attested its newest version, at most. */
const MISSING_NAMED = 200;

/** What accountability reads of the operators module (its service). */
export interface OperatorReads {
  list(filter: { status?: OperatorRecord['status'] }, limit: number, after?: string): Promise<OperatorRecord[]>;
  samePersonAs(label: string): Promise<ReadonlySet<string>>;
}

export const attestationView = (a: AttestationRecord) => ({
  attestationId: a.id,
  operator: a.username,
  tenant: a.tenant,
  statementId: a.statementId,
  version: a.version,
  note: a.note,
  attestedAt: iso(a.attestedAt),
  auditSeq: a.auditSeq,
});

/**
 * Accountability (docs/backoffice/compliance.md): operators' attestations of the deployment's
 * statements, who held which roles when (from the audit chain), and the separation-of-duties
 * report.
 */
export class Accountability {
  constructor(
    private readonly deps: {
      store: ComplianceStore;
      uow: UnitOfWork;
      operators: OperatorReads;
      /** Usernames of the active operators holding one of `roles`, by username (the operators module's view). */
      holding(roles: readonly string[]): Promise<string[]>;
      /** Audit entries of these actions, newest first, about `target` if given (the kernel's view). */
      auditOf(actions: readonly string[], target: string | undefined, page: PageWindow<readonly [number]>): Promise<AuditEntry[]>;
      /** Pairs of actors who approved each other's requests (the approvals module's view). */
      reciprocal(limit: number): Promise<ReciprocalApprovals[]>;
      clock: Clock;
      ids: Ids;
    },
  ) {}

  /**
   * The calling operator attests a statement's version; attesting the same version again answers
   * the first attestation (and its audit entry) and writes nothing.
   */
  async attest(
    input: { statementId: string; version: string; note?: string | undefined },
    by: { username: string | null; tenant: string | null },
    actor: Actor,
  ) {
    const username = by.username;
    if (username === null) {
      throw new ServiceError('forbidden', 'An attestation is a person’s: the owner token cannot attest.');
    }
    const existing = await this.deps.store.findAttestation(username, input.statementId, input.version);
    if (existing)
      return { ok: true as const, auditSeq: existing.auditSeq, attestation: attestationView(existing), created: false };
    const attestedAt = this.deps.clock.now();
    try {
      return await this.deps.uow.run(async ({ audit }) => {
        const id = this.deps.ids.mint('statementAttestation');
        const auditSeq = await audit.append({
          actor,
          action: 'accountability.attested',
          tenant: by.tenant,
          target: id,
          detail: { statementId: input.statementId, version: input.version },
        });
        const record: AttestationRecord = {
          id,
          username,
          tenant: by.tenant,
          statementId: input.statementId,
          version: input.version,
          note: input.note ?? null,
          attestedAt,
          auditSeq,
        };
        if (!(await this.deps.store.addAttestation(record))) throw new AttestedMeanwhile();
        return { ok: true as const, auditSeq, attestation: attestationView(record), created: true };
      });
    } catch (err) {
      if (!(err instanceof AttestedMeanwhile)) throw err;
      const first = await this.deps.store.findAttestation(username, input.statementId, input.version);
      if (!first) throw err;
      return { ok: true as const, auditSeq: first.auditSeq, attestation: attestationView(first), created: false };
    }
  }

  /**
   * For each statement's newest version published, the active operators who may attest (a
   * back-office role) and have not attested it.
   */
  async attestationsDue() {
    const newest = await this.deps.store.newestVersions(STATEMENTS_SHOWN);
    if (newest.length === 0) return [];
    const attesters = await this.deps.holding(ROLE_MATRIX.attest);
    const due = [];
    for (const { statementId, version, attested } of newest) {
      const done = new Set(await this.deps.store.attestedBy(statementId, version));
      const missing = attesters.filter((username) => !done.has(username)).slice(0, MISSING_NAMED);
      due.push({ statementId, version, attested, missing });
    }
    return due;
  }

  /** Attestations, newest first (the list convention). */
  attestations(
    filter: { username?: string | undefined; statementId?: string | undefined },
    window: PageWindow<readonly [number, string]>,
  ) {
    return this.deps.store.attestations(filter, window);
  }

  /** Role changes, newest first, from the audit chain (the list convention). */
  roleHistory(username: string | undefined, window: PageWindow<readonly [number]>) {
    return this.deps.auditOf(ROLE_ACTIONS, username, window);
  }

  /**
   * The conflicts as a report: each person (an operator with every account that may be the same
   * person, OperatorService.samePersonAs) holding roles that should be split, and pairs of
   * operators who approved each other's requests.
   */
  async roleSeparation() {
    const operators: OperatorRecord[] = [];
    let after: string | undefined;
    for (;;) {
      const rows = await this.deps.operators.list({}, OPERATOR_PAGE, after);
      operators.push(...rows.filter((o) => o.status !== 'removed'));
      if (rows.length < OPERATOR_PAGE || operators.length >= REPORT_MAX) break;
      after = rows.at(-1)?.username;
    }
    const truncated = operators.length >= REPORT_MAX;
    const shown = operators.slice(0, REPORT_MAX);
    const rolesOf = new Map(shown.map((o) => [o.username, o.roles]));
    const conflicts = [];
    for (const o of shown) {
      const linked = [...(await this.deps.operators.samePersonAs(`operator:${o.username}`))]
        .map((label) => label.slice('operator:'.length))
        .filter((name) => name !== o.username && rolesOf.has(name))
        .sort();
      const held = new Set<OperatorRole>([...o.roles, ...linked.flatMap((name) => rolesOf.get(name) ?? [])]);
      const pairs = SEPARATED_ROLES.filter(([a, b]) => held.has(a) && held.has(b)).map(([a, b]) => [a, b]);
      if (pairs.length > 0) conflicts.push({ operator: o.username, roles: o.roles, linked, heldTogether: pairs });
    }
    const reciprocal = await this.deps.reciprocal(REPORT_MAX);
    return {
      checkedAt: iso(this.deps.clock.now()),
      operators: shown.length,
      truncated,
      separatedRoles: SEPARATED_ROLES.map(([a, b]) => [a, b]),
      conflicts,
      reciprocalApprovals: reciprocal,
    };
  }
}

/** Another request attested the same version first: the transaction rolls back and its attestation is answered. */
class AttestedMeanwhile extends Error {}

/** A role change as the role history answers it. */
export const roleChangeView = (r: AuditEntry) => ({
  seq: r.seq,
  at: iso(r.at),
  actor: r.actor,
  action: r.action,
  operator: r.target ?? '',
  tenant: r.tenant,
  roles: Array.isArray(r.detail.roles) ? (r.detail.roles as string[]) : null,
});
