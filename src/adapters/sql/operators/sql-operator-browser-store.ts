import type { BrowserSession, MintedToken, OperatorBrowserStore, PendingLogin } from '../../../ports/operator-browser-store.ts';
import { type Db, onPostgres } from '../connect.ts';
import { rowCodec } from '../row-codec.ts';
import type { OidcLoginsTable, OperatorBrowserSessionsTable } from '../schema.ts';
import { atomically } from '../sql-unit-of-work.ts';

const logins = rowCodec<PendingLogin, OidcLoginsTable>()('stateHash binderHash nonce verifier returnTo createdAt expiresAt', {});
const sessions = rowCodec<BrowserSession, OperatorBrowserSessionsTable>()('idHash username via createdAt expiresAt', {});

export class SqlOperatorBrowserStore implements OperatorBrowserStore {
  constructor(private readonly db: Db) {}

  async addLogin(login: PendingLogin): Promise<void> {
    await this.db.insertInto('oidc_logins').values(logins.row(login)).execute();
  }

  async takeLogin(stateHash: string, binderHash: string, now: number): Promise<PendingLogin | undefined> {
    const row = await this.db
      .deleteFrom('oidc_logins')
      .where('state_hash', '=', stateHash)
      .where('binder_hash', '=', binderHash)
      .returningAll()
      .executeTakeFirst();
    return row && Number(row.expires_at) > now ? logins.record(row) : undefined;
  }

  async createSession(session: BrowserSession): Promise<void> {
    await this.db.insertInto('operator_browser_sessions').values(sessions.row(session)).execute();
  }

  async session(idHash: string, now: number): Promise<BrowserSession | undefined> {
    const row = await this.db
      .selectFrom('operator_browser_sessions')
      .selectAll()
      .where('id_hash', '=', idHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row && sessions.record(row);
  }

  async addApiToken(tokenHash: string, username: string, browserSession: string, now: number, expiresAt: number) {
    await this.db
      .insertInto('operator_sessions')
      .values({ token_hash: tokenHash, username, created_at: now, expires_at: expiresAt, browser_session: browserSession })
      .execute();
  }

  mintApiToken(token: MintedToken, cap: { max: number; except: string }): Promise<'minted' | 'capped' | 'ended'> {
    return atomically(this.db, async (trx) => {
      // Held until the commit (SQLite: the transaction's write lock), so the count below is of
      // what every earlier mint of this session committed.
      let held = trx
        .selectFrom('operator_browser_sessions')
        .select('id_hash')
        .where('id_hash', '=', token.browserSession)
        .where('expires_at', '>', token.now);
      if (onPostgres(trx)) held = held.forNoKeyUpdate();
      if (!(await held.executeTakeFirst())) return 'ended';
      const { live } = await trx
        .selectFrom('operator_sessions')
        .select((eb) => eb.fn.countAll().as('live'))
        .where('browser_session', '=', token.browserSession)
        .where('expires_at', '>', token.now)
        .where('token_hash', '<>', cap.except)
        .executeTakeFirstOrThrow();
      if (Number(live) >= cap.max) return 'capped';
      await trx
        .insertInto('operator_sessions')
        .values({
          token_hash: token.tokenHash,
          username: token.username,
          created_at: token.now,
          expires_at: token.expiresAt,
          browser_session: token.browserSession,
        })
        .execute();
      return 'minted';
    });
  }

  endSession(idHash: string): Promise<boolean> {
    return atomically(this.db, async (trx) => {
      await trx.deleteFrom('operator_sessions').where('browser_session', '=', idHash).execute();
      const ended = await trx.deleteFrom('operator_browser_sessions').where('id_hash', '=', idHash).executeTakeFirst();
      return Number(ended.numDeletedRows) > 0;
    });
  }

  async prune(now: number): Promise<void> {
    await this.db.deleteFrom('oidc_logins').where('expires_at', '<=', now).execute();
    await this.db.deleteFrom('operator_browser_sessions').where('expires_at', '<=', now).execute();
  }
}
