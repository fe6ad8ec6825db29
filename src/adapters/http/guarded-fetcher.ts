import { promises as dns, type LookupAddress } from 'node:dns';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { type FetchedResource, type FetchOptions, FetchRefused, type HttpFetcher } from '../../ports/http-fetcher.ts';
import { isPublicAddress } from './public-address.ts';

export type Resolver = (hostname: string, options: { all: true }) => Promise<LookupAddress[]>;

export interface GuardedFetcherOptions {
  /** The whole exchange, from DNS to the last body byte (default 5000 ms). */
  timeoutMs?: number;
  /** The largest body accepted, in bytes (default 1 MiB). */
  maxBytes?: number;
  /** Tests only: name resolution (default dns.promises.lookup). */
  lookup?: Resolver;
  /** Tests only: trust anchors replacing the system ones. */
  ca?: string | Buffer;
  /** Tests only: the address policy replacing isPublicAddress. */
  allowAddress?: (ip: string) => boolean;
}

/** HttpFetcher with the port's policy built in, so no caller can fetch without it. */
export class GuardedFetcher implements HttpFetcher {
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly resolve: Resolver;
  private readonly ca: string | Buffer | undefined;
  private readonly allowAddress: (ip: string) => boolean;

  constructor(options: GuardedFetcherOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.maxBytes = options.maxBytes ?? 1024 * 1024;
    this.resolve = options.lookup ?? dns.lookup;
    this.ca = options.ca;
    this.allowAddress = options.allowAddress ?? isPublicAddress;
  }

  get(target: string, options: FetchOptions): Promise<FetchedResource> {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return Promise.reject(new FetchRefused('url', 'the URL does not parse'));
    }
    // Plain http can be altered on the way; other schemes (file:, data:) read what is not a web resource.
    if (url.protocol !== 'https:') return Promise.reject(new FetchRefused('scheme', 'only https URLs are fetched'));
    // Credentials in a URL would be sent to whoever wrote the URL's host.
    if (url.username !== '' || url.password !== '') {
      return Promise.reject(new FetchRefused('url', 'a URL carrying credentials is not fetched'));
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    // A literal IP is connected to without any lookup, so it is judged here.
    if (isIP(host) !== 0 && !this.allowAddress(host)) {
      return Promise.reject(new FetchRefused('address', 'the host is not a public address'));
    }
    return this.exchange(url, host, options.accept);
  }

  private exchange(url: URL, host: string, accept: string): Promise<FetchedResource> {
    return new Promise((resolve, reject) => {
      const tooLarge = () => new FetchRefused('size', `the body exceeds ${this.maxBytes} bytes`);
      let settled = false;
      const settle = (outcome: FetchedResource | FetchRefused) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (outcome instanceof FetchRefused) {
          req.destroy();
          reject(outcome);
        } else resolve(outcome);
      };

      // Judging the addresses inside the connection's own lookup means the address checked is the
      // address connected to: a second, rebinding DNS answer has no gap to slip into.
      const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
        Promise.resolve()
          .then(() => this.resolve(hostname, { all: true }))
          .then(
            (addresses) => {
              if (addresses.length === 0) return fail(new FetchRefused('network', 'the host did not resolve'));
              // One private answer is enough to refuse: the connection may use any of them.
              if (!addresses.every((a) => this.allowAddress(a.address))) {
                return fail(new FetchRefused('address', 'the host resolves to an address that is not public'));
              }
              const [first] = addresses;
              if (lookupOptions.all) callback(null, addresses);
              else if (first) callback(null, first.address, first.family);
            },
            () => fail(new FetchRefused('network', 'the host did not resolve')),
          );
        const fail = (refusal: FetchRefused) => {
          settle(refusal);
          callback(refusal, '', 0);
        };
      };

      const req = request({
        host,
        port: url.port === '' ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        // Only what the caller asked for: no cookies, no credentials, and no compression so the
        // size limit counts the bytes actually kept.
        headers: { Accept: accept, 'Accept-Encoding': 'identity' },
        lookup,
        ca: this.ca,
        agent: false, // no pooled socket that was checked under some earlier answer
      });

      // Bounds the whole exchange, so a slow-dripping server cannot hold a verifier forever.
      const timer = setTimeout(() => settle(new FetchRefused('timeout', 'the fetch timed out')), this.timeoutMs);

      req.on('error', () => settle(new FetchRefused('network', 'the connection failed')));
      req.on('response', (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        // A redirect could lead anywhere, including past the checks made for this URL.
        if (status >= 300 && status < 400) return settle(new FetchRefused('redirect', `redirects are not followed (${status})`));
        // An error page is not the artifact; its body is never read, let alone returned.
        if (status < 200 || status >= 300) return settle(new FetchRefused('status', `the server answered ${status}`));
        if (Number(res.headers['content-length'] ?? 0) > this.maxBytes) return settle(tooLarge());

        const chunks: Buffer[] = [];
        let size = 0;
        // Counted as it arrives, so an endless body is cut off rather than buffered.
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.maxBytes) return settle(tooLarge());
          chunks.push(chunk);
        });
        res.on('end', () =>
          settle({
            url: url.href,
            status,
            contentType: (res.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '',
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', () => settle(new FetchRefused('network', 'the connection failed')));
        res.on('close', () => settle(new FetchRefused('network', 'the connection closed early')));
      });
      req.end();
    });
  }
}
