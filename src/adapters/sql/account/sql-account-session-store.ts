import type { AccountSessionStore, TicketRecord } from '../../../ports/account-session-store.ts';
import type { Db } from '../connect.ts';
import { rowCodec } from '../row-codec.ts';
import type { SigninTicketsTable } from '../schema.ts';

const tickets = rowCodec<TicketRecord, SigninTicketsTable>()(
  'idHash browserHash browser createdAt expiresAt approvedAccount approvedAt spentAt',
  {},
);

export class SqlAccountSessionStore implements AccountSessionStore {
  constructor(private readonly db: Db) {}

  async openTicket(t: TicketRecord): Promise<void> {
    await this.db.insertInto('signin_tickets').values(tickets.row(t)).execute();
  }

  async ticket(idHash: string): Promise<TicketRecord | undefined> {
    const r = await this.db.selectFrom('signin_tickets').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
    return r && tickets.record(r);
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
