/**
 * How the reference wallet reaches a service: https only, except loopback addresses over http
 * when the holder says so (`--allow-http`, for a service on this machine). Every answer is
 * bounded in time and size, and a redirect is a failure: the protocols it speaks never need one.
 *
 * Every wallet command loads this module, so it imports no protocol library: the one setting the
 * OID4VC libraries need is in library-http.ts, loaded only with them.
 */
import { didWebDocumentUrl as documentUrlOf } from '../core/did-web.ts';

export interface WalletNetOptions {
  /** Permits http:// to loopback hosts (localhost, 127.0.0.0/8, [::1]); never to any other host. */
  allowHttp: boolean;
  /** Per request; default 10 s. */
  timeoutMs?: number;
  /** The largest answer read; default 1 MiB. */
  maxBytes?: number;
}

export class WalletError extends Error {}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

export const isLoopback = (url: URL) => LOOPBACK.test(url.hostname);

/** Throws unless the wallet may talk to `url`. */
export function checkReachable(url: URL, options: WalletNetOptions): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && options.allowHttp && isLoopback(url)) return;
  if (url.protocol === 'http:' && isLoopback(url)) {
    throw new WalletError(`${url.origin} is plain http: add --allow-http to talk to a service on this machine.`);
  }
  throw new WalletError(`the wallet talks to https services only, not ${url.protocol}//${url.host}.`);
}

/** A fetch for the wallet's libraries, under the rules above. */
export function walletFetch(options: WalletNetOptions): typeof fetch {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    checkReachable(url, options);
    const request = new Request(input, init);
    let response: Response;
    try {
      response = await fetch(request, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      throw new WalletError(`${request.method} ${url.origin}${url.pathname} failed: ${(err as Error).message}`);
    }
    if (response.status >= 300 && response.status < 400) {
      throw new WalletError(
        `${url.origin}${url.pathname} answered a redirect (${response.status}), which the wallet does not follow.`,
      );
    }
    const body = await readBounded(response, maxBytes, url);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

async function readBounded(response: Response, maxBytes: number, url: URL): Promise<Uint8Array | null> {
  if (!response.body) return null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new WalletError(`${url.origin}${url.pathname} answered more than ${maxBytes} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Where a did:web DID's document is (core/did-web.ts): https, except a loopback host when http is allowed. */
export function didWebDocumentUrl(did: string, options: WalletNetOptions): URL {
  const url = documentUrlOf(did);
  if (!url) throw new WalletError(`not a did:web DID: ${did.slice(0, 200)}`);
  if (options.allowHttp && isLoopback(url)) url.protocol = 'http:';
  return url;
}
