import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Random } from '../../core/random.ts';
import { hashToken } from '../../core/secrets.ts';
import type { AnonymousGate } from '../../http/auth/anonymous-gate.ts';
import type { AccountSessionStore } from '../../ports/account-session-store.ts';
import { browserLabel } from './browser-label.ts';

export const TICKET_TTL_MS = 10 * 60 * 1000;
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;
/** What a ticket id looks like: 32 random bytes, base64url (randomText(32)). */
export const TICKET_ID = /^[A-Za-z0-9_-]{43}$/;
/** Ended tickets and sessions are deleted this long after they end (the prune job runs hourly). */
const PRUNE_AFTER_MS = 60 * 60 * 1000;

/** Why continuing a sign-in did not open a session. */
export type ContinueOutcome = { session: string; accountId: string } | { waiting: true } | { ended: true };

/**
 * The browser sign-in of the account portal (docs/account.md; interface spec, Browser sign-in
 * ticket): a browser opens a ticket, the holder's wallet approves it (a holder JWS for the approve
 * audience), the browser collects a session with it. A wallet on the same device can hand a
 * session over directly (a holder JWS for the session audience). Tickets and sessions are stored
 * by hash; every move is one conditional write.
 */
export class SigninService {
  readonly approveAudience: string;

  constructor(
    private readonly store: AccountSessionStore,
    private readonly budgets: AnonymousGate,
    private readonly clock: Clock,
    private readonly random: Random,
    readonly origin: string,
  ) {
    this.approveAudience = `${origin}/account/approve`;
  }

  /**
   * A new ticket: its id, for the QR code and the approve URL (what the wallet needs), and the
   * browser's own secret, for its HttpOnly cookie only. Whoever sees the QR code, the approve page
   * or a log of the approve URL knows the id and still cannot collect the session.
   */
  async open(
    userAgent: string | undefined,
    address: string,
  ): Promise<{ ticket: string; browserSecret: string; expiresAt: number }> {
    await this.budgets.spend('account-signin', address);
    const now = this.clock.now();
    const ticket = this.random.text(32);
    const browserSecret = this.random.text(32);
    await this.store.openTicket({
      idHash: hashToken(ticket),
      browserHash: hashToken(browserSecret),
      browser: browserLabel(userAgent),
      createdAt: now,
      expiresAt: now + TICKET_TTL_MS,
      approvedAccount: null,
      approvedAt: null,
      spentAt: null,
    });
    return { ticket, browserSecret, expiresAt: now + TICKET_TTL_MS };
  }

  /** Who asked, for the approve page: undefined when the ticket is spent, expired or unknown. */
  async askedBy(ticket: string): Promise<{ askedBy: string; askedAt: number; approved: boolean } | undefined> {
    const found = await this.store.ticket(hashToken(ticket));
    if (!found || found.spentAt !== null || found.expiresAt <= this.clock.now()) return undefined;
    return { askedBy: found.browser, askedAt: found.createdAt, approved: found.approvedAccount !== null };
  }

  /**
   * The wallet approves (its holder JWS, for the approve audience only, was checked and its jti
   * spent by the holder plane): one conditional write. Malformed, unknown, expired and already
   * approved are one refusal (interface spec: one identical answer), and a `t` that cannot be a
   * ticket is never looked up.
   */
  async approve(accountId: string, ticket: unknown): Promise<void> {
    const approved =
      typeof ticket === 'string' &&
      TICKET_ID.test(ticket) &&
      (await this.store.approve(hashToken(ticket), accountId, this.clock.now()));
    if (!approved) throw new ServiceError('signin_unavailable', 'This sign-in request is unknown, expired or already approved.');
  }

  /**
   * The browser collects: an approved ticket is spent and becomes a session, for the browser that
   * holds its secret only; a ticket of another browser is, to this one, a ticket that ended. (A
   * ticket makes one session at most, so the sessions collected are bounded by the tickets the
   * account-signin budget lets be opened.)
   */
  async continue(ticket: string, browserSecret: string): Promise<ContinueOutcome> {
    const now = this.clock.now();
    const browserHash = hashToken(browserSecret);
    const accountId = await this.store.spend(hashToken(ticket), browserHash, now);
    if (accountId) return { session: await this.startSession(accountId), accountId };
    const found = await this.store.ticket(hashToken(ticket));
    return found &&
      found.browserHash === browserHash &&
      found.spentAt === null &&
      found.expiresAt > now &&
      found.approvedAccount === null
      ? { waiting: true }
      : { ended: true };
  }

  /** A session for the account (a collected ticket, or a wallet's handoff): its secret, for the cookie. */
  async startSession(accountId: string): Promise<string> {
    const now = this.clock.now();
    const session = this.random.text(32);
    await this.store.createSession(hashToken(session), accountId, now, now + SESSION_TTL_MS);
    return session;
  }

  /** The account of a live session (the account-session plane asks on every request). */
  account(session: string): Promise<string | undefined> {
    return this.store.session(hashToken(session), this.clock.now());
  }

  async signOut(session: string): Promise<void> {
    await this.store.endSession(hashToken(session));
  }

  prune(now: number): Promise<void> {
    return this.store.prune(now - PRUNE_AFTER_MS);
  }
}
