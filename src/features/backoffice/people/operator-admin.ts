import { Type } from '@sinclair/typebox';
import type { Actor } from '../../../core/actor.ts';
import type { Clock } from '../../../core/clock.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { ApprovalDesk, ApprovalView, TransactionScope } from '../../../http/admin/approval-desk.ts';
import { iso, isoOrNull, type ListParams, page } from '../../../http/admin/kit.ts';
import { type OperatorPrincipal, operatorActor } from '../../../http/auth/operator-bearer.ts';
import { Nullable, Slug } from '../../../http/schemas/common.ts';
import type { BackofficePeopleLocks, BackofficePeopleReads } from '../../../ports/backoffice-people.ts';
import type {
  OperatorFilter,
  OperatorRecord,
  OperatorRole,
  OperatorSessionStore,
  OperatorStatus,
  OperatorStore,
} from '../../../ports/operator-store.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';
import type { FirstCredential } from '../../operators/operator-credentials.ts';
import {
  demotesOwner,
  grantsOwner,
  type OperatorChange,
  type OperatorScope,
  type OperatorService,
} from '../../operators/operator-service.ts';
import { Roles, Username } from './schemas.ts';

/** The stores an operator change holds in its transaction: the operator's, and the rows it locks. */
export type AdminScope = { operators: OperatorStore; sessions: OperatorSessionStore; people: BackofficePeopleLocks };

/** A change made at once, or filed for a second owner's approval. */
export type Outcome =
  | { done: true; auditSeq: number; operator: OperatorDetailView }
  | { done: false; auditSeq: number; approval: ApprovalView };

export interface OperatorDetailView {
  username: string;
  roles: OperatorRole[];
  tenant: string | null;
  status: OperatorStatus;
  createdAt: string;
  updatedAt: string;
  lockedUntil: string | null;
  identity: { issuer: string; subject: string; linkedAt: string } | null;
  activeSessions: number;
  lastSignInAt: string | null;
}

type RolesParams = { username: string; roles: OperatorRole[]; tenant?: string | null };
type UserParams = { username: string };

const unknown = (username: string) => new ServiceError('unknown_operator', `No operator "${username}" (or it was removed).`);
const lastOwner = (username: string) =>
  new ServiceError(
    'last_owner',
    `${username} is the last active platform owner operator: make another operator owner first (the owner token does not count).`,
  );

/** Holds a platform-wide owner's power: the owner role, no tenant scope. */
const platformOwner = (roles: readonly string[], tenant: string | null) => roles.includes('owner') && tenant === null;

const rowView = (op: OperatorRecord) => ({
  username: op.username,
  roles: op.roles,
  tenant: op.tenant,
  status: op.status,
  createdAt: iso(op.createdAt),
  updatedAt: iso(op.updatedAt),
});

/**
 * Operators in the back office (docs/backoffice/people.md, "Operators"). Every change is one of
 * OperatorService's (docs/operators.md), so the rules of POST /api/operators hold here too; a
 * change that takes the owner role away from an owner is filed with the approval desk instead, and
 * runs when a second owner approves it, in the approval's transaction.
 */
export class OperatorAdmin {
  constructor(
    private readonly service: OperatorService,
    private readonly operators: OperatorStore,
    private readonly sessions: OperatorSessionStore,
    private readonly reads: BackofficePeopleReads,
    private readonly uow: UnitOfWork<AdminScope>,
    /** The same stores as the unit of work's: called inside an approval, they join its transaction. */
    private readonly scope: AdminScope,
    private readonly tenantExists: (slug: string) => Promise<boolean>,
    private readonly desk: ApprovalDesk,
    private readonly clock: Clock,
  ) {}

  async list(p: ListParams, filter: Omit<OperatorFilter, 'tenant' | 'since' | 'until'>) {
    const after = p.after === undefined ? undefined : usernameCursor(p.after);
    const rows = await this.operators.list(
      {
        ...filter,
        ...(p.tenant === null ? {} : { tenant: p.tenant }),
        ...(p.since === undefined ? {} : { since: p.since }),
        ...(p.until === undefined ? {} : { until: p.until }),
      },
      p.limit + 1,
      after,
    );
    const shown = page(rows, p.limit, (op) => [op.username], rowView);
    return { operators: shown.rows, nextCursor: shown.nextCursor };
  }

  /** One operator, removed ones included (the back office keeps their history). */
  async get(username: string): Promise<OperatorDetailView> {
    const op = await this.operators.get(username);
    if (!op) throw new ServiceError('unknown_operator', `No operator "${username}".`);
    const now = this.clock.now();
    const [identity, activeSessions, lastSignIn] = await Promise.all([
      this.operators.identityOf(username),
      this.sessions.countLive(username, now),
      this.reads.lastSignIn(username),
    ]);
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
    return this.direct(params.username, needsSecond, (stores) =>
      this.service.changeRoles(stores, params.username, params.roles, params.tenant, operatorActor(by)),
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
    return this.direct(username, holdsOwner, (stores) => this.service.changeStatus(stores, username, status, operatorActor(by)));
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
      execute: (tx, p, context) =>
        this.approved(tx, p.username, context.actor, async (stores, target, people) => {
          const tenant = p.tenant === undefined ? target.tenant : p.tenant;
          if (p.tenant !== undefined && p.tenant !== null && !(await people.tenantExists(p.tenant)))
            throw unknownTenant(p.tenant);
          return {
            keeps: platformOwner(p.roles, tenant),
            run: (actor) => this.service.changeRoles(stores, p.username, p.roles, p.tenant, actor),
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
        execute: (tx, p, context) =>
          this.approved(tx, p.username, context.actor, async (stores) => ({
            keeps: false,
            run: (actor) => this.service.changeStatus(stores, p.username, status, actor),
          })),
      });
    }
  }

  /**
   * An approved owner change, in the approval's transaction: the active platform owners' rows are
   * held (before the target's, in one order, so concurrent changes queue rather than deadlock),
   * and a change that would leave none is refused.
   */
  private async approved(
    tx: TransactionScope,
    username: string,
    actor: Actor,
    prepare: (
      stores: OperatorScope,
      target: OperatorRecord,
      people: BackofficePeopleLocks,
    ) => Promise<{ keeps: boolean; run: (actor: Actor) => Promise<OperatorChange> }>,
  ): Promise<Record<string, unknown>> {
    const { operators, sessions, people } = this.scope;
    const owners = await people.holdPlatformOwners();
    const target = await people.lockOperator(username);
    if (!target || target.status === 'removed') throw unknown(username);
    const stores = { operators, sessions, audit: tx.audit };
    const { keeps, run } = await prepare(stores, target, people);
    if (owners.includes(username) && !keeps && owners.length === 1) throw lastOwner(username);
    const change = await run(actor);
    return { username, roles: change.roles, tenant: change.tenant, status: change.status, auditSeq: change.auditSeq };
  }

  /**
   * A change that needs no second owner, in its own transaction: the target's row is held and
   * read again, so an operator whose roles changed meanwhile is not demoted or promoted without one.
   */
  private async direct(
    username: string,
    needsApproval: (target: OperatorRecord) => boolean,
    run: (stores: OperatorScope) => Promise<OperatorChange>,
  ): Promise<Outcome> {
    const change = await this.uow.run(async ({ operators, sessions, people, audit }) => {
      const target = await people.lockOperator(username);
      if (!target || target.status === 'removed') throw unknown(username);
      if (needsApproval(target)) {
        throw new ServiceError(
          'conflict',
          `${username} changed meanwhile, so this change now needs a second owner: send it again to file it for approval.`,
        );
      }
      return run({ operators, sessions, audit });
    });
    return this.answer(change);
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
    const owners = await this.reads.platformOwners();
    if (owners.every((username) => username === target.username)) {
      throw lastOwner(target.username);
    }
  }

  private async require(username: string): Promise<OperatorRecord> {
    const op = await this.operators.get(username);
    if (!op || op.status === 'removed') throw unknown(username);
    return op;
  }

  private async requireTenant(slug: string): Promise<void> {
    if (!(await this.tenantExists(slug))) throw unknownTenant(slug);
  }
}

const STATUS_VERBS = { suspended: 'suspend', removed: 'remove' } as const;

const unknownTenant = (slug: string) => new ServiceError('unknown_tenant', `No tenant has the slug "${slug}".`);

function usernameCursor(after: readonly (string | number)[]): string {
  const [username] = after;
  if (after.length !== 1 || typeof username !== 'string') {
    throw new ServiceError('invalid_request', 'cursor is not a cursor this list answered.');
  }
  return username;
}
