import type { Clock } from '../../core/clock.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { decodeJws, isObject } from '../../core/jose/es256.ts';
import { FetchRefused, type HttpFetcher } from '../../ports/http-fetcher.ts';
import { STATUS_LIST_MEDIA_TYPE } from '../status/status-service.ts';

/** Builds one of this service's list tokens (StatusService.token). */
export type LocalStatusList = (tenant: string, seq: number) => Promise<string>;

/** A fetched list is kept at most this long, whatever its ttl says. */
const MAX_CACHE_S = 3600;
const CACHE_ENTRIES = 256;

/**
 * Status List Tokens for the hosted verifier. A list of this service is built from the record
 * (authoritative, never stale). Any other is fetched through the SSRF-guarded fetcher and kept
 * for its `ttl`, never past its `exp` (draft-ietf-oauth-status-list §8.3: exp and ttl rule over
 * HTTP caching). A list that cannot be had is undefined: the verdict is then indeterminate.
 */
export class StatusListSource {
  private readonly cache = new Map<string, { token: string; until: number }>();

  constructor(
    private readonly urls: IssuerUrls,
    private readonly local: LocalStatusList,
    private readonly fetcher: HttpFetcher,
    private readonly clock: Clock,
  ) {}

  isLocal(uri: string): boolean {
    return this.urls.parseStatusList(uri) !== undefined;
  }

  async get(uri: string): Promise<string | undefined> {
    const ours = this.urls.parseStatusList(uri);
    if (ours) return this.local(ours.tenant, ours.seq).catch(() => undefined);
    const now = this.clock.now();
    const cached = this.cache.get(uri);
    if (cached && cached.until > now) return cached.token;
    this.cache.delete(uri);
    try {
      const fetched = await this.fetcher.get(uri, { accept: STATUS_LIST_MEDIA_TYPE });
      if (fetched.contentType !== STATUS_LIST_MEDIA_TYPE) return undefined;
      const token = fetched.body.trim();
      this.remember(uri, token, now);
      return token;
    } catch (err) {
      if (err instanceof FetchRefused) return undefined;
      throw err;
    }
  }

  private remember(uri: string, token: string, now: number): void {
    const payload = decodeJws(token)?.payload;
    if (!isObject(payload)) return;
    const seconds = Math.min(
      typeof payload.ttl === 'number' && payload.ttl > 0 ? payload.ttl : 0,
      typeof payload.exp === 'number' ? payload.exp - now / 1000 : MAX_CACHE_S,
      MAX_CACHE_S,
    );
    if (seconds <= 0) return;
    if (this.cache.size >= CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(uri, { token, until: now + seconds * 1000 });
  }
}

/** The status list URI a presentation's credential names, read before anything is verified. */
export function statusUriOf(presentation: string): string | undefined {
  const jwt = decodeJws(presentation.split('~', 1)[0] ?? '');
  const status = jwt?.payload.status;
  const reference = isObject(status) ? status.status_list : undefined;
  return isObject(reference) && typeof reference.uri === 'string' ? reference.uri : undefined;
}
