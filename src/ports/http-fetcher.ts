/**
 * Outbound HTTP: artifacts a verifier must read from elsewhere (status lists, did:web
 * documents) and webhook deliveries. The policy lives in the adapter, so no caller can forget it: https only, public
 * addresses only (checked on the address actually connected to), no redirects, bounded time and
 * size, and a 4xx/5xx body is never used (SD-JWT VC -19 "HTTP retrieval").
 */
export interface HttpFetcher {
  get(url: string, options: FetchOptions): Promise<FetchedResource>;
  /**
   * Sends a body and answers the status the target gave, whatever it is (a 3xx is answered, never
   * followed). The response body is read up to the size limit and dropped: nothing a target
   * writes back is kept. Refused before sending (FetchRefused) on the same policy as `get`.
   */
  post(url: string, options: PostOptions): Promise<PostOutcome>;
}

export interface PostOptions {
  headers: Record<string, string>;
  body: string;
  /** The whole exchange, up to the response's headers (default: the fetcher's timeout). */
  timeoutMs?: number;
}

export interface PostOutcome {
  status: number;
  /** From the start of the request (DNS included) to the response's headers. */
  latencyMs: number;
}

export interface FetchOptions {
  /** Sent as the Accept header. */
  accept: string;
}

export interface FetchedResource {
  url: string;
  status: number;
  /** The media type without parameters, lower-cased ('' when absent). */
  contentType: string;
  body: string;
}

export type FetchRefusalReason = 'url' | 'scheme' | 'address' | 'redirect' | 'status' | 'size' | 'timeout' | 'network';

/** Why a fetch was refused or failed; the message is safe to show to a caller. */
export class FetchRefused extends Error {
  constructor(
    readonly reason: FetchRefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'FetchRefused';
  }
}
