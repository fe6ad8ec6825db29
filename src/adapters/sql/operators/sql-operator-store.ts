import { sql } from 'kysely';
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
} from '../../../ports/operator-store.ts';
import { type Db, onPostgres } from '../connect.ts';
import { json, rowCodec } from '../row-codec.ts';
import type { OperatorsTable } from '../schema.ts';
import { inWindow } from '../windowed.ts';

const operators = rowCodec<OperatorRecord, OperatorsTable>()(
  'username passwordHash tenant status failedAttempts lockedUntil createdAt updatedAt email invitationExpiresAt',
  { roles: json },
);
const toOperator = operators.record;

export class SqlOperatorStore implements OperatorStore {
  constructor(private readonly db: Db) {}

  async create(op: OperatorRecord, invitation?: InvitationGrant, createdBy?: string): Promise<boolean> {
    const result = await this.db
      .insertInto('operators')
      .values({
        ...operators.row({ ...op, invitationExpiresAt: invitation?.expiresAt ?? null }),
        invitation_hash: invitation?.hash ?? null,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    const created = Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    if (created && createdBy !== undefined) {
      await this.db
        .insertInto('operator_links')
        .values({ username: op.username, linked_to: createdBy, kind: 'created', since: op.createdAt })
        .execute();
    }
    return created;
  }

  async creatorOf(username: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('operator_links')
      .select('linked_to')
      .where('username', '=', username)
      .where('kind', '=', 'created')
      .executeTakeFirst();
    return row?.linked_to;
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
    // A walk over three kinds of step: up a link (to whoever created the operator or set its
    // credentials), down one, and across a shared enterprise identity. A walk keeps its direction
    // once it has one (an identity step keeps it), so it never goes up and then down: two operators
    // one owner invited are not linked through that owner. UNION (not ALL) drops rows already
    // walked, so the walk ends on any graph, cycles included.
    const rows = await sql<{ name: string }>`
      with recursive
        steps(src, dst, way) as (
          select username, linked_to, cast('up' as text) from operator_links
          union all
          select linked_to, username, cast('down' as text) from operator_links
          union all
          select x.username, y.username, cast('same' as text) from operator_identity_history x
          join operator_identity_history y on y.issuer = x.issuer and y.subject = x.subject and y.username <> x.username
        ),
        walk(name, way) as (
          select cast(${username} as text), cast('any' as text)
          union
          select s.dst, case when s.way = 'same' then w.way else s.way end
          from walk w join steps s on s.src = w.name
          where s.way = 'same' or w.way = 'any' or s.way = w.way
        )
      select distinct name from walk where name <> ${username}`.execute(this.db);
    return rows.rows.map((r) => r.name);
  }

  async get(username: string): Promise<OperatorRecord | undefined> {
    const row = await this.db.selectFrom('operators').selectAll().where('username', '=', username).executeTakeFirst();
    return row ? toOperator(row) : undefined;
  }

  async lock(username: string): Promise<OperatorRecord | undefined> {
    if (onPostgres(this.db)) {
      await this.db.selectFrom('operators').select('username').where('username', '=', username).forUpdate().execute();
    }
    return this.get(username);
  }

  platformOwners(): Promise<string[]> {
    return this.owners(false);
  }

  holdPlatformOwners(): Promise<string[]> {
    return this.owners(onPostgres(this.db));
  }

  private async owners(hold: boolean): Promise<string[]> {
    // Roles are a JSON array of names.
    let query = this.db
      .selectFrom('operators')
      .select('username')
      .where('status', '=', 'active')
      .where('tenant', 'is', null)
      .where('roles', 'like', '%"owner"%')
      .orderBy('username');
    if (hold) query = query.forUpdate();
    return (await query.execute()).map((r) => r.username);
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
      // Only an active operator outside a lock counts a failure; the statement runs all the same,
      // so a refusal costs the same whoever it is for.
      .where('status', '=', 'active')
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
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
    query = query.where(inWindow('created_at', filter));
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
    // A password change or a removal ends the operator's browser sessions too (docs/operators.md).
    await this.db.deleteFrom('operator_browser_sessions').where('username', '=', username).execute();
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
