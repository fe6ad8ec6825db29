import { promises as dns, type LookupAddress } from 'node:dns';
import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from '../../core/public-address.ts';
import { inSpan, SpanKind, traceHeaders } from '../../core/tracing.ts';
import {
  type FetchedResource,
  type FetchOptions,
  FetchRefused,
  type HttpFetcher,
  type PostOptions,
  type PostOutcome,
} from '../../ports/http-fetcher.ts';

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
  /**
   * Origins reached although they are not public https (OPENRAIL_OUTBOUND_ALLOW): for exactly
   * these, plain http is allowed and the address is not judged.
   */
  allowOrigins?: readonly string[];
}

interface Exchange {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

interface Started {
  res: IncomingMessage;
  req: ClientRequest;
  finish: (outcome: FetchRefused | undefined) => void;
  /** The refusal that ended the exchange (a timeout), if one did. */
  endedBy: () => FetchRefused | undefined;
}

/** HttpFetcher with the port's policy built in, so no caller can fetch without it. */
export class GuardedFetcher implements HttpFetcher {
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly resolve: Resolver;
  private readonly ca: string | Buffer | undefined;
  private readonly allowAddress: (ip: string) => boolean;
  private readonly allowOrigins: ReadonlySet<string>;

  constructor(options: GuardedFetcherOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.maxBytes = options.maxBytes ?? 1024 * 1024;
    this.resolve = options.lookup ?? dns.lookup;
    this.ca = options.ca;
    this.allowAddress = options.allowAddress ?? isPublicAddress;
    this.allowOrigins = new Set(options.allowOrigins ?? []);
  }

  /**
   * Each call in a client span (core/tracing.ts) named by its method, with the host it went to and
   * the status; never the path or the query. The trace context goes along (traceparent).
   */
  private traced<T extends { status: number }>(method: string, target: string, call: () => Promise<T>): Promise<T> {
    let host = 'invalid';
    try {
      host = new URL(target).hostname;
    } catch {
      // judge() refuses it, inside the span.
    }
    return inSpan(`HTTP ${method}`, SpanKind.CLIENT, { 'http.request.method': method, 'server.address': host }, async (span) => {
      const answer = await call();
      span.setAttribute('http.response.status_code', answer.status);
      return answer;
    });
  }

  get(target: string, options: FetchOptions): Promise<FetchedResource> {
    return this.traced('GET', target, () => this.fetchGet(target, options));
  }

  post(target: string, options: PostOptions): Promise<PostOutcome> {
    return this.traced('POST', target, () => this.fetchPost(target, options));
  }

  private async fetchGet(target: string, options: FetchOptions): Promise<FetchedResource> {
    const url = this.judge(target);
    // Only what the caller asked for: no cookies, no credentials, and no compression so the
    // size limit counts the bytes actually kept; and the trace context, when tracing.
    const headers = { Accept: options.accept, 'Accept-Encoding': 'identity', ...traceHeaders() };
    const { res, finish, endedBy } = await this.start(url, { method: 'GET', headers, timeoutMs: this.timeoutMs });
    const status = res.statusCode ?? 0;
    const tooLarge = () => new FetchRefused('size', `the body exceeds ${this.maxBytes} bytes`);
    // A redirect could lead anywhere, including past the checks made for this URL.
    if (status >= 300 && status < 400)
      throw refuse(finish, new FetchRefused('redirect', `redirects are not followed (${status})`));
    // An error page is not the artifact; its body is never read, let alone returned.
    if (status < 200 || status >= 300) throw refuse(finish, new FetchRefused('status', `the server answered ${status}`));
    if (Number(res.headers['content-length'] ?? 0) > this.maxBytes) throw refuse(finish, tooLarge());
    const body = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const fail = (refusal: FetchRefused) => {
        if (done) return;
        done = true;
        reject(endedBy() ?? refuse(finish, refusal));
      };
      // Counted as it arrives, so an endless body is cut off rather than buffered.
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > this.maxBytes) return fail(tooLarge());
        chunks.push(chunk);
      });
      res.on('end', () => {
        if (done) return;
        done = true;
        finish(undefined);
        resolve(Buffer.concat(chunks).toString('utf8'));
      });
      res.on('error', () => fail(new FetchRefused('network', 'the connection failed')));
      res.on('close', () => fail(new FetchRefused('network', 'the connection closed early')));
    });
    return {
      url: url.href,
      status,
      contentType: (res.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '',
      body,
    };
  }

  private async fetchPost(target: string, options: PostOptions): Promise<PostOutcome> {
    const url = this.judge(target);
    const began = performance.now();
    const headers = {
      ...options.headers,
      ...traceHeaders(),
      'Accept-Encoding': 'identity',
      'Content-Length': String(Buffer.byteLength(options.body)),
    };
    const { res, req, finish } = await this.start(url, {
      method: 'POST',
      headers,
      body: options.body,
      timeoutMs: options.timeoutMs ?? this.timeoutMs,
    });
    const latencyMs = performance.now() - began;
    // The answer is its status; what the target writes back is read up to the limit and dropped.
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > this.maxBytes) req.destroy();
    });
    res.on('end', () => finish(undefined));
    res.on('error', () => finish(undefined));
    res.on('close', () => finish(undefined));
    return { status: res.statusCode ?? 0, latencyMs };
  }

  /** The URL's policy, before any connection: parseable, https (or an allowed origin), no credentials, no literal private address. */
  private judge(target: string): URL {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new FetchRefused('url', 'the URL does not parse');
    }
    const allowed = this.allowOrigins.has(url.origin);
    // Plain http can be altered on the way; other schemes (file:, data:) read what is not a web resource.
    if (url.protocol !== 'https:' && !(allowed && url.protocol === 'http:')) {
      throw new FetchRefused('scheme', 'only https URLs are fetched');
    }
    // Credentials in a URL would be sent to whoever wrote the URL's host.
    if (url.username !== '' || url.password !== '') throw new FetchRefused('url', 'a URL carrying credentials is not fetched');
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    // A literal IP is connected to without any lookup, so it is judged here.
    if (!allowed && isIP(host) !== 0 && !this.allowAddress(host)) {
      throw new FetchRefused('address', 'the host is not a public address');
    }
    return url;
  }

  /**
   * Connects, sends, and resolves once the response's headers arrive. The timer bounds the whole
   * exchange, the body included, until `finish` is called, so a slow-dripping server cannot hold
   * the caller for ever.
   */
  private start(url: URL, exchange: Exchange): Promise<Started> {
    const allowed = this.allowOrigins.has(url.origin);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    return new Promise((resolve, reject) => {
      let settled = false;
      let finished = false;
      let endedBy: FetchRefused | undefined;
      const finish = (outcome: FetchRefused | undefined) => {
        if (finished) return;
        finished = true;
        endedBy = outcome;
        clearTimeout(timer);
        if (outcome) req.destroy();
      };
      const fail = (refusal: FetchRefused) => {
        finish(refusal);
        if (settled) return;
        settled = true;
        reject(refusal);
      };

      // Judging the addresses inside the connection's own lookup means the address checked is the
      // address connected to: a second, rebinding DNS answer has no gap to slip into.
      const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
        const refuse = (refusal: FetchRefused) => {
          fail(refusal);
          callback(refusal, '', 0);
        };
        Promise.resolve()
          .then(() => this.resolve(hostname, { all: true }))
          .then(
            (addresses) => {
              if (addresses.length === 0) return refuse(new FetchRefused('network', 'the host did not resolve'));
              // One private answer is enough to refuse: the connection may use any of them.
              if (!allowed && !addresses.every((a) => this.allowAddress(a.address))) {
                return refuse(new FetchRefused('address', 'the host resolves to an address that is not public'));
              }
              const [first] = addresses;
              if (lookupOptions.all) callback(null, addresses);
              else if (first) callback(null, first.address, first.family);
            },
            () => refuse(new FetchRefused('network', 'the host did not resolve')),
          );
      };

      const https = url.protocol === 'https:';
      const req = (https ? httpsRequest : httpRequest)({
        host,
        port: url.port === '' ? (https ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: exchange.method,
        headers: exchange.headers,
        lookup,
        ...(https ? { ca: this.ca } : {}),
        agent: false, // no pooled socket that was checked under some earlier answer
      });
      const timer = setTimeout(() => fail(new FetchRefused('timeout', 'the fetch timed out')), exchange.timeoutMs);
      req.on('error', () => fail(new FetchRefused('network', 'the connection failed')));
      req.on('response', (res: IncomingMessage) => {
        if (settled) return void res.resume();
        settled = true;
        resolve({ res, req, finish, endedBy: () => endedBy });
      });
      req.end(exchange.body);
    });
  }
}

/** Ends the exchange with a refusal and answers it, to be thrown. */
function refuse(finish: Started['finish'], refusal: FetchRefused): FetchRefused {
  finish(refusal);
  return refusal;
}
