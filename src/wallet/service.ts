/**
 * The wallet's calls to an openrail service beyond OID4VCI and OID4VP: the holder plane (signed
 * with the device key, docs/authentication.md) and the public operations around it. Every call
 * goes through `walletFetch`, so it is bounded and https-only like the rest of the wallet.
 */
import { holderAuthorization } from './holder-jws.ts';
import { WalletError, type WalletNetOptions, walletFetch } from './net.ts';
import type { Wallet } from './wallet-file.ts';

export interface ServiceAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** The service's origin from what the holder typed: an origin, nothing after it. */
export function serviceOrigin(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WalletError(`${text.slice(0, 100)} is not a service address (for example https://rail.example.org).`);
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new WalletError('give the service as an origin only, for example https://rail.example.org');
  }
  return url.origin;
}

/**
 * One call; a `wallet` signs it with a holder JWS (for `audiencePath` when the operation has an
 * audience of its own). A non-JSON answer is a failure; an error answer is not.
 */
export async function callService(
  wallet: Wallet | undefined,
  origin: string,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  net: WalletNetOptions,
  audiencePath = '',
): Promise<ServiceAnswer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (wallet) headers.authorization = holderAuthorization(wallet, origin, audiencePath);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await walletFetch(net)(`${origin}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WalletError(`${method} ${path} answered ${response.status} without JSON.`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new WalletError(`${method} ${path} answered ${response.status} with something other than a JSON object.`);
  }
  return { status: response.status, body: parsed as Record<string, unknown> };
}

/** The answer's body when it succeeded; otherwise a refusal naming the service's error code. */
export function succeeded(answer: ServiceAnswer): Record<string, unknown> {
  if (answer.status >= 200 && answer.status < 300) return answer.body;
  const { error, message } = answer.body;
  const code = typeof error === 'string' ? error : `HTTP ${answer.status}`;
  throw new WalletError(`the service refused: ${code}${typeof message === 'string' ? ` (${message.slice(0, 300)})` : ''}`);
}
