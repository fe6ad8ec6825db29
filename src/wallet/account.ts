/**
 * The wallet's part in the account portal's browser sign-in (docs/account.md): a browser shows
 * `<origin>/account/approve?t=<ticket>` as a QR code; the wallet reads who asked, then approves the
 * ticket with a holder JWS whose `aud` is that URL's origin and path (interface spec, Holder JWS
 * 4), so the signature can approve and never open a session.
 */
import { WalletError, type WalletNetOptions } from './net.ts';
import { callService, succeeded } from './service.ts';
import type { Wallet } from './wallet-file.ts';

export const APPROVE_PATH = '/account/approve';
/** Far above any approve URL a service prints, far below what a terminal or a QR code holds. */
const MAX_URL_CHARS = 2048;
/** A ticket is opaque to the wallet: base64url characters, bounded either way. */
const TICKET = /^[A-Za-z0-9_-]{16,256}$/;
/** The browser's description is the service's words, shown on one line: bounded. */
const MAX_ASKED_BY_CHARS = 200;

export interface ApproveTarget {
  origin: string;
  ticket: string;
}

/** The origin and ticket of an approve URL, or a WalletError saying what is wrong with it. */
export function parseApproveUrl(text: string): ApproveTarget {
  const example = 'for example https://rail.example.org/account/approve?t=…';
  if (text.length > MAX_URL_CHARS) throw new WalletError(`the approve URL is longer than ${MAX_URL_CHARS} characters.`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WalletError(`${text.slice(0, 100)} is not an approve URL (${example}).`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new WalletError(`not an approve URL (${example}).`);
  if (url.username !== '' || url.password !== '') throw new WalletError('an approve URL carries no user name or password.');
  if (url.pathname !== APPROVE_PATH) throw new WalletError(`an approve URL's path is ${APPROVE_PATH} (${example}).`);
  const tickets = url.searchParams.getAll('t');
  const [ticket] = tickets;
  if (tickets.length !== 1 || ticket === undefined || !TICKET.test(ticket)) {
    throw new WalletError('the approve URL must carry one sign-in ticket, t=<ticket>.');
  }
  if ([...url.searchParams.keys()].some((key) => key !== 't') || url.hash !== '') {
    throw new WalletError('the approve URL carries something besides its ticket.');
  }
  return { origin: url.origin, ticket };
}

/**
 * Reads who asked (`GET` with `Accept: application/json`), then approves (`POST {t}`, signed for
 * the approve audience). Resolves with who asked once the service has approved.
 */
export async function approveSignin(wallet: Wallet, target: ApproveTarget, net: WalletNetOptions): Promise<{ askedBy: string }> {
  const { origin, ticket } = target;
  const asked = await callService(undefined, origin, 'GET', `${APPROVE_PATH}?t=${ticket}`, undefined, net);
  if (asked.status === 410 || asked.body.error === 'signin_ended') {
    throw new WalletError(
      'the service refused: signin_ended (this sign-in request was used already or has expired; start a new sign-in in the browser).',
    );
  }
  const { askedBy } = succeeded(asked);
  if (typeof askedBy !== 'string' || askedBy === '') {
    throw new WalletError(`GET ${APPROVE_PATH} did not say which browser asked to sign in: nothing was approved.`);
  }
  const answer = await callService(wallet, origin, 'POST', APPROVE_PATH, { t: ticket }, net, APPROVE_PATH);
  if (answer.body.error === 'signin_unavailable') {
    throw new WalletError(
      'the service refused: signin_unavailable (this sign-in request is approved already, has expired, or is unknown).',
    );
  }
  const approved = succeeded(answer);
  if (approved.ok !== true) throw new WalletError(`POST ${APPROVE_PATH} answered without approving.`);
  return { askedBy: askedBy.replace(/\s+/g, ' ').slice(0, MAX_ASKED_BY_CHARS) };
}
