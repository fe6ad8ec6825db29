import { type Static, Type } from '@sinclair/typebox';
import type { Clock } from '../../../core/clock.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { ApprovalDesk, ApprovalView } from '../../../http/admin/approval-desk.ts';
import { iso, isoOrNull } from '../../../http/admin/kit.ts';
import { type OperatorPrincipal, operatorActor } from '../../../http/auth/operator-bearer.ts';
import { Nullable, Slug } from '../../../http/schemas/common.ts';
import type { KernelViews } from '../../../ports/kernel-views.ts';
import type { OperatorFilter, OperatorRecord, OperatorRole } from '../../../ports/operator-store.ts';
import type { FirstCredential } from '../../operators/operator-credentials.ts';
import {
  demotesOwner,
  grantsOwner,
  lastOwner,
  type OperatorChange,
  type OperatorService,
} from '../../operators/operator-service.ts';
import { operatorView } from '../../operators/schemas.ts';
import { type OperatorDetail, type OperatorRow, Roles, Username } from './schemas.ts';

/** A change made at once, or filed for a second owner's approval. */
export type Outcome =
  | { done: true; auditSeq: number; operator: OperatorDetailView }
  | { done: false; auditSeq: number; approval: ApprovalView };

export type OperatorDetailView = Static<typeof OperatorDetail>;

type RolesParams = { username: string; roles: OperatorRole[]; tenant?: string | null };
type UserParams = { username: string };

const unknown = (username: string) => new ServiceError('unknown_operator', `No operator "${username}" (or it was removed).`);

/** Holds a platform-wide owner's power: the owner role, no tenant scope. */
const platformOwner = (roles: readonly string[], tenant: string | null) => roles.includes('owner') && tenant === null;

const rowView = (op: OperatorRecord): Static<typeof OperatorRow> => ({
  ...operatorView(op),
  createdAt: iso(op.createdAt),
  updatedAt: iso(op.updatedAt),
});

/**
 * Operators in the back office (docs/backoffice/people.md, "Operators"): the back office's face of
 * OperatorService (docs/operators.md), which reads and changes them, so the rules of POST
 * /api/operators hold here too. What is the back office's own is the four eyes: a change that
 * takes the owner role away from an owner (or grants it) is filed with the approval desk instead,
 * and runs when a second owner approves it, in the approval's transaction.
 */
export class OperatorAdmin {
  constructor(
    private readonly service: OperatorService,
    /** The last sign-in, read from the audit log. */
    private readonly reads: Pick<KernelViews, 'lastSignIn'>,
    private readonly tenantExists: (slug: string) => Promise<boolean>,
    private readonly desk: ApprovalDesk,
    private readonly clock: Clock,
  ) {}

  /** Operators by username after `after`, at most `limit` (OperatorService.list), as the list shows them. */
  async list(filter: OperatorFilter, limit: number, after: string | undefined) {
    return (await this.service.list(filter, limit, after)).map(rowView);
  }

  /** One operator, removed ones included (the back office keeps their history). */
  async get(username: string): Promise<OperatorDetailView> {
    const [detail, lastSignIn] = await Promise.all([this.service.detail(username), this.reads.lastSignIn(username)]);
    if (!detail) throw new ServiceError('unknown_operator', `No operator "${username}".`);
    const { record: op, identity, activeSessions } = detail;
    const now = this.clock.now();
    return {
      ...rowView(op),
      lockedUntil: op.lockedUntil !== null && op.lockedUntil > now ? iso(op.lockedUntil) : null,
      identity: identity ? { issuer: identity.issuer, subject: identity.subject, linkedAt: iso(identity.linkedAt) } : null,
      activeSessions,
      lastSignInAt: isoOrNull(lastSignIn),
    };
  }

  async create(
    input: { username: string; roles: OperatorRole[]; tenant?: string | null; credential: FirstCredential },
    by: OperatorPrincipal,
  ) {
    return this.answer(await this.service.create(input, operatorActor(by)));
  }

  /** An invitation mailed again (invited), or a password reset (active): docs/operators.md, "Invitations". */
  async invite(username: string, email: string | undefined, by: OperatorPrincipal) {
    return this.answer(await this.service.invite(username, email, operatorActor(by)));
  }

  async enable(username: string, by: OperatorPrincipal) {
    return this.answer(await this.service.enable(username, operatorActor(by)));
  }

  /** The operator's own password (or the owner token's recovery): OperatorService.setPassword holds it to that. */
  async setPassword(username: string, password: string, currentPassword: string | undefined, by: OperatorPrincipal) {
    return this.answer(await this.service.setPassword(username, password, operatorActor(by), currentPassword));
  }

  /** Links an enterprise identity, or (issuer null) removes the link: the operator itself, or the owner token. */
  async setIdentity(username: string, identity: { issuer: string; subject: string } | null, by: OperatorPrincipal) {
    const actor = operatorActor(by);
    if (identity === null) return this.answer(await this.service.unlinkIdentity(username, actor));
    return this.answer(await this.service.linkIdentity(username, identity, actor));
  }

  async setRoles(params: RolesParams, by: OperatorPrincipal, reason: string | undefined): Promise<Outcome> {
    const target = await this.require(params.username);
    if (params.tenant !== undefined && params.tenant !== null) await this.requireTenant(params.tenant);
    // Taking owner away needs a second owner; so does granting it, unless the owner token grants it.
    const needsSecond = (t: OperatorRecord) =>
      demotesOwner(t, params.roles, params.tenant) || (by.via !== 'owner-token' && grantsOwner(t, params.roles, params.tenant));
    if (needsSecond(target)) return this.file('operator.roles', params, by, reason);
    return this.answer(
      await this.service.changeUnapproved(params.username, needsSecond, () =>
        this.service.changeRoles(params.username, params.roles, params.tenant, operatorActor(by)),
      ),
    );
  }

  async setStatus(
    status: 'suspended' | 'removed',
    username: string,
    by: OperatorPrincipal,
    reason: string | undefined,
  ): Promise<Outcome> {
    const target = await this.require(username);
    const holdsOwner = (t: OperatorRecord) => t.roles.includes('owner');
    if (holdsOwner(target)) return this.file(`operator.${STATUS_VERBS[status]}`, { username }, by, reason);
    return this.answer(
      await this.service.changeUnapproved(username, holdsOwner, () =>
        this.service.changeStatus(username, status, operatorActor(by)),
      ),
    );
  }

  /** The owner changes a second owner approves (docs/backoffice.md, "Four eyes"). */
  registerActions(desk: ApprovalDesk): void {
    desk.register<RolesParams>({
      name: 'operator.roles',
      summary: 'Change roles a second owner must approve: take owner away (or narrow it to a tenant), or grant it.',
      params: Type.Object(
        { username: Username, roles: Roles, tenant: Type.Optional(Nullable(Slug)) },
        { additionalProperties: false },
      ),
      roles: ['owner'],
      tenantOf: () => null,
      check: async (p) => {
        const target = await this.require(p.username);
        if (p.tenant !== undefined && p.tenant !== null) await this.requireTenant(p.tenant);
        await this.checkLastOwner(target, platformOwner(p.roles, p.tenant === undefined ? target.tenant : p.tenant));
      },
      execute: (_tx, p, context) =>
        this.approved(p.username, async (target) => {
          const tenant = p.tenant === undefined ? target.tenant : p.tenant;
          if (p.tenant !== undefined && p.tenant !== null) await this.requireTenant(p.tenant);
          return {
            keeps: platformOwner(p.roles, tenant),
            run: () => this.service.changeRoles(p.username, p.roles, p.tenant, context.actor),
          };
        }),
    });
    for (const status of ['suspended', 'removed'] as const) {
      desk.register<UserParams>({
        name: `operator.${STATUS_VERBS[status]}`,
        summary:
          status === 'suspended'
            ? 'Suspend an owner: its sessions stop working.'
            : 'Remove an owner for good: its sessions end and its username stays reserved.',
        params: Type.Object({ username: Username }, { additionalProperties: false }),
        roles: ['owner'],
        tenantOf: () => null,
        check: async (p) => this.checkLastOwner(await this.require(p.username), false),
        execute: (_tx, p, context) =>
          this.approved(p.username, async () => ({
            keeps: false,
            run: () => this.service.changeStatus(p.username, status, context.actor),
          })),
      });
    }
  }

  /** An approved owner change, in the approval's transaction (OperatorService.changeApproved). */
  private async approved(
    username: string,
    prepare: Parameters<OperatorService['changeApproved']>[1],
  ): Promise<Record<string, unknown>> {
    const change = await this.service.changeApproved(username, prepare);
    return { username, roles: change.roles, tenant: change.tenant, status: change.status, auditSeq: change.auditSeq };
  }

  private async file(
    action: string,
    params: Record<string, unknown>,
    by: OperatorPrincipal,
    reason: string | undefined,
  ): Promise<Outcome> {
    const filed = await this.desk.request(action, params, by, reason);
    return { done: false, auditSeq: filed.auditSeq, approval: filed.approval };
  }

  private async answer(change: OperatorChange): Promise<Outcome & { done: true }> {
    return { done: true, auditSeq: change.auditSeq, operator: await this.get(change.username) };
  }

  /** Refuses, when an approval is filed, a change that would already leave no active platform owner. */
  private async checkLastOwner(target: OperatorRecord, keeps: boolean): Promise<void> {
    if (keeps || !platformOwner(target.roles, target.tenant) || target.status !== 'active') return;
    const owners = await this.service.platformOwners();
    if (owners.every((username) => username === target.username)) {
      throw lastOwner(target.username);
    }
  }

  private async require(username: string): Promise<OperatorRecord> {
    const op = await this.service.record(username);
    if (!op || op.status === 'removed') throw unknown(username);
    return op;
  }

  private async requireTenant(slug: string): Promise<void> {
    if (!(await this.tenantExists(slug))) throw unknownTenant(slug);
  }
}

const STATUS_VERBS = { suspended: 'suspend', removed: 'remove' } as const;

const unknownTenant = (slug: string) => new ServiceError('unknown_tenant', `No tenant has the slug "${slug}".`);
