import type { AccountSessionStore, TicketRecord } from '../../ports/account-session-store.ts';
import type { Db } from './connect.ts';

export class SqlAccountSessionStore implements AccountSessionStore {
  constructor(private readonly db: Db) {}

  async openTicket(t: TicketRecord): Promise<void> {
    await this.db
      .insertInto('signin_tickets')
      .values({
        id_hash: t.idHash,
        browser_hash: t.browserHash,
        browser: t.browser,
        created_at: t.createdAt,
        expires_at: t.expiresAt,
        approved_account: null,
        approved_at: null,
        spent_at: null,
      })
      .execute();
  }

  async ticket(idHash: string): Promise<TicketRecord | undefined> {
    const r = await this.db.selectFrom('signin_tickets').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
    return (
      r && {
        idHash: r.id_hash,
        browserHash: r.browser_hash,
        browser: r.browser,
        createdAt: Number(r.created_at),
        expiresAt: Number(r.expires_at),
        approvedAccount: r.approved_account,
        approvedAt: r.approved_at === null ? null : Number(r.approved_at),
        spentAt: r.spent_at === null ? null : Number(r.spent_at),
      }
    );
  }

  async approve(idHash: string, accountId: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('signin_tickets')
      .set({ approved_account: accountId, approved_at: now })
      .where('id_hash', '=', idHash)
      .where('approved_account', 'is', null)
      .where('spent_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async spend(idHash: string, browserHash: string, now: number): Promise<string | undefined> {
    const row = await this.db
      .updateTable('signin_tickets')
      .set({ spent_at: now })
      .where('id_hash', '=', idHash)
      .where('browser_hash', '=', browserHash)
      .where('approved_account', 'is not', null)
      .where('spent_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('approved_account')
      .executeTakeFirst();
    return row?.approved_account ?? undefined;
  }

  async createSession(tokenHash: string, accountId: string, now: number, expiresAt: number): Promise<void> {
    await this.db
      .insertInto('account_sessions')
      .values({ token_hash: tokenHash, account_id: accountId, created_at: now, expires_at: expiresAt })
      .execute();
  }

  async session(tokenHash: string, now: number): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('account_sessions')
      .select('account_id')
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row?.account_id;
  }

  async endSession(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('account_sessions').where('token_hash', '=', tokenHash).execute();
  }

  async prune(before: number): Promise<void> {
    await this.db.deleteFrom('signin_tickets').where('expires_at', '<', before).execute();
    await this.db.deleteFrom('account_sessions').where('expires_at', '<', before).execute();
  }
}
