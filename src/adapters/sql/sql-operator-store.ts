import { type Selectable, sql } from 'kysely';
import type {
  InvitationGrant,
  OperatorFilter,
  OperatorIdentity,
  OperatorRecord,
  OperatorRole,
  OperatorSession,
  OperatorSessionStore,
  OperatorStatus,
  OperatorStore,
} from '../../ports/operator-store.ts';
import type { Db } from './connect.ts';
import type { OperatorsTable } from './schema.ts';

const toOperator = (row: Selectable<OperatorsTable>): OperatorRecord => ({
  username: row.username,
  passwordHash: row.password_hash,
  roles: JSON.parse(row.roles),
  tenant: row.tenant,
  status: row.status,
  failedAttempts: row.failed_attempts,
  lockedUntil: row.locked_until,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  email: row.email,
  createdBy: row.created_by,
  invitationExpiresAt: row.invitation_expires_at === null ? null : Number(row.invitation_expires_at),
});

export class SqlOperatorStore implements OperatorStore {
  constructor(private readonly db: Db) {}

  async create(op: OperatorRecord, invitation?: InvitationGrant): Promise<boolean> {
    const result = await this.db
      .insertInto('operators')
      .values({
        username: op.username,
        password_hash: op.passwordHash,
        roles: JSON.stringify(op.roles),
        tenant: op.tenant,
        status: op.status,
        failed_attempts: op.failedAttempts,
        locked_until: op.lockedUntil,
        created_at: op.createdAt,
        updated_at: op.updatedAt,
        email: op.email,
        created_by: op.createdBy,
        invitation_hash: invitation?.hash ?? null,
        invitation_expires_at: invitation?.expiresAt ?? null,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async issueInvitation(username: string, grant: InvitationGrant, email: string | undefined, now: number): Promise<boolean> {
    // An invited operator's address may still be corrected (nobody has taken the account yet);
    // an active one's reset goes to the address on record, which no other operator can change.
    const result = await this.db
      .updateTable('operators')
      .set({ invitation_hash: grant.hash, invitation_expires_at: grant.expiresAt, updated_at: now })
      .$if(email !== undefined, (q) => q.set({ email: email ?? null }))
      .where('username', '=', username)
      .where((eb) =>
        email === undefined
          ? eb.or([eb('status', '=', 'invited'), eb.and([eb('status', '=', 'active'), eb('email', 'is not', null)])])
          : eb('status', '=', 'invited'),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async findByInvitation(hash: string, now: number): Promise<OperatorRecord | undefined> {
    const row = await this.db
      .selectFrom('operators')
      .selectAll()
      .where('invitation_hash', '=', hash)
      .where('invitation_expires_at', '>', now)
      .where('status', 'in', ['invited', 'active'])
      .executeTakeFirst();
    return row ? toOperator(row) : undefined;
  }

  async acceptInvitation(hash: string, passwordHash: string, now: number): Promise<string | undefined> {
    const row = await this.db
      .updateTable('operators')
      .set({
        password_hash: passwordHash,
        status: 'active',
        invitation_hash: null,
        invitation_expires_at: null,
        failed_attempts: 0,
        locked_until: null,
        updated_at: now,
      })
      .where('invitation_hash', '=', hash)
      .where('invitation_expires_at', '>', now)
      .where('status', 'in', ['invited', 'active'])
      .returning('username')
      .executeTakeFirst();
    return row?.username;
  }

  async relatedTo(username: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('operators')
      .select('created_by as username')
      .where('username', '=', username)
      .where('created_by', 'is not', null)
      .union((db) => db.selectFrom('operators').select('username').where('created_by', '=', username))
      .union((db) =>
        db
          .selectFrom('operator_identity_history as x')
          .innerJoin('operator_identity_history as y', (j) =>
            j.onRef('x.issuer', '=', 'y.issuer').onRef('x.subject', '=', 'y.subject'),
          )
          .select('y.username')
          .where('x.username', '=', username)
          .where('y.username', '<>', username),
      )
      .execute();
    return rows.flatMap((r) => (r.username === null ? [] : [r.username]));
  }

  async get(username: string): Promise<OperatorRecord | undefined> {
    const row = await this.db.selectFrom('operators').selectAll().where('username', '=', username).executeTakeFirst();
    return row ? toOperator(row) : undefined;
  }

  async setRoles(username: string, roles: OperatorRole[], tenant: string | null | undefined, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('operators')
      .set({ roles: JSON.stringify(roles), ...(tenant === undefined ? {} : { tenant }), updated_at: now })
      .where('username', '=', username)
      .where('status', '!=', 'removed')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async setStatus(username: string, status: OperatorStatus, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('operators')
      .set({ status, updated_at: now })
      .where('username', '=', username)
      .where('status', '!=', 'removed')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async recordFailedLogin(username: string, now: number, maxFailures: number, lockMs: number): Promise<void> {
    // One statement, so concurrent failures cannot lose a count. Both SET expressions read the row
    // as it was: a lock that has already ended starts a fresh count of consecutive failures.
    const count = sql<number>`case when locked_until is not null and locked_until <= ${now} then 1 else failed_attempts + 1 end`;
    await this.db
      .updateTable('operators')
      .set({
        failed_attempts: count,
        locked_until: sql`case when ${count} >= ${maxFailures} then ${now + lockMs} when locked_until <= ${now} then null else locked_until end`,
      })
      .where('username', '=', username)
      .execute();
  }

  async clearFailedLogins(username: string, _now: number): Promise<void> {
    await this.db
      .updateTable('operators')
      .set({ failed_attempts: 0, locked_until: null })
      .where('username', '=', username)
      .execute();
  }

  async list(filter: OperatorFilter, limit: number, after?: string): Promise<OperatorRecord[]> {
    let query = this.db.selectFrom('operators').selectAll();
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    // Roles are a JSON array of names, none of which holds a LIKE wildcard or a quote.
    if (filter.role !== undefined) query = query.where('roles', 'like', `%"${filter.role}"%`);
    if (filter.tenant !== undefined) query = query.where('tenant', '=', filter.tenant);
    if (filter.prefix !== undefined) {
      const pattern = `${filter.prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query = query.where(sql<boolean>`username like ${pattern} escape '\\'`);
    }
    if (filter.since !== undefined) query = query.where('created_at', '>=', filter.since);
    if (filter.until !== undefined) query = query.where('created_at', '<', filter.until);
    if (after !== undefined) query = query.where('username', '>', after);
    return (await query.orderBy('username').limit(limit).execute()).map(toOperator);
  }

  async setPassword(username: string, passwordHash: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('operators')
      .set({ password_hash: passwordHash, failed_attempts: 0, locked_until: null, updated_at: now })
      .where('username', '=', username)
      .where('status', '!=', 'removed')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async identityOf(username: string): Promise<OperatorIdentity | undefined> {
    const row = await this.db
      .selectFrom('operator_identities')
      .select(['issuer', 'subject', 'linked_at'])
      .where('username', '=', username)
      .executeTakeFirst();
    return row ? { issuer: row.issuer, subject: row.subject, linkedAt: Number(row.linked_at) } : undefined;
  }

  async linkIdentity(username: string, identity: OperatorIdentity, now: number): Promise<'linked' | 'taken' | 'unknown'> {
    // Touching the operator's row holds it (PostgreSQL) until the transaction ends, so two links of
    // one operator follow each other; a removed operator is not touched.
    const touched = await this.db
      .updateTable('operators')
      .set({ updated_at: now })
      .where('username', '=', username)
      .where('status', '!=', 'removed')
      .executeTakeFirst();
    if (Number(touched.numUpdatedRows) !== 1) return 'unknown';
    const holder = await this.findByIdentity(identity.issuer, identity.subject);
    if (holder === username) return 'linked';
    if (holder !== undefined) return 'taken';
    await this.db.deleteFrom('operator_identities').where('username', '=', username).execute();
    const inserted = await this.db
      .insertInto('operator_identities')
      .values({ issuer: identity.issuer, subject: identity.subject, username, linked_at: identity.linkedAt })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    // Another operator linked the same identity in a transaction that committed meanwhile.
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) return 'taken';
    await this.db
      .insertInto('operator_identity_history')
      .values({ issuer: identity.issuer, subject: identity.subject, username, linked_at: identity.linkedAt })
      .onConflict((oc) => oc.doNothing())
      .execute();
    return 'linked';
  }

  async unlinkIdentity(username: string): Promise<OperatorIdentity | undefined> {
    // One statement answers what it removed: a link made or removed meanwhile is never reported
    // (and audited) as the one removed here.
    const removed = await this.db
      .deleteFrom('operator_identities')
      .where('username', '=', username)
      .returning(['issuer', 'subject', 'linked_at'])
      .executeTakeFirst();
    return removed && { issuer: removed.issuer, subject: removed.subject, linkedAt: Number(removed.linked_at) };
  }

  async findByIdentity(issuer: string, subject: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('operator_identities')
      .select('username')
      .where('issuer', '=', issuer)
      .where('subject', '=', subject)
      .executeTakeFirst();
    return row?.username;
  }
}

export class SqlOperatorSessionStore implements OperatorSessionStore {
  constructor(private readonly db: Db) {}

  async create(tokenHash: string, username: string, now: number, expiresAt: number): Promise<void> {
    await this.db
      .insertInto('operator_sessions')
      .values({ token_hash: tokenHash, username, created_at: now, expires_at: expiresAt })
      .execute();
  }

  async find(tokenHash: string, now: number): Promise<OperatorSession | undefined> {
    const row = await this.db
      .selectFrom('operator_sessions')
      .select(['username', 'expires_at'])
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row ? { username: row.username, expiresAt: row.expires_at } : undefined;
  }

  async revokeAll(username: string): Promise<void> {
    await this.db.deleteFrom('operator_sessions').where('username', '=', username).execute();
  }

  async countLive(username: string, now: number): Promise<number> {
    const row = await this.db
      .selectFrom('operator_sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('username', '=', username)
      .where('expires_at', '>', now)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async prune(now: number): Promise<void> {
    await this.db.deleteFrom('operator_sessions').where('expires_at', '<=', now).execute();
  }
}
