import { ServiceError } from '../../../core/errors.ts';
import { isObject } from '../../../core/jose/es256.ts';
import type { KeyStore, PublicKey } from '../../../ports/key-store.ts';
import type { OrgDomain } from '../../../ports/org-store.ts';
import type { TenantRow } from '../../../ports/tenant-store.ts';
import type { DriftView } from './schemas.ts';

/** One published DID document against the stored keys. */
type DocumentDrift = DriftView['documents'][number];

export interface DriftDeps {
  keys: KeyStore;
  didOf: (slug: string) => string;
  /** Where the DID's document is (did-web-resolver.ts, didWebUrl). */
  urlOf: (did: string) => URL;
  /** The DID's document at a URL, through the guarded fetcher; throws ServiceError `did_unresolvable`. */
  read: (did: string, url: URL) => Promise<Record<string, unknown>>;
  domainOf: (slug: string) => Promise<OrgDomain | undefined>;
}

const RELATIONSHIP = { issuer: 'assertionMethod', verifier: 'authentication' } as const;

/**
 * DID drift (docs/operations.md, "DID drift"): each tenant's DID document as it is published —
 * where its did:web resolves, and under its organisation's active custom domain — against the keys
 * stored for it, naming every difference.
 */
export class DidDrift {
  constructor(private readonly deps: DriftDeps) {}

  async of(tenant: TenantRow): Promise<DriftView> {
    const did = this.deps.didOf(tenant.slug);
    const stored = await this.deps.keys.publishedKeys(tenant.slug);
    const url = this.deps.urlOf(did);
    const documents = [await this.compare(did, url, stored)];
    const domain = await this.deps.domainOf(tenant.slug);
    if (domain?.state === 'active')
      documents.push(await this.compare(did, new URL(url.pathname, `https://${domain.domain}`), stored));
    return { tenant: tenant.slug, did, ok: documents.every((d) => d.ok), documents };
  }

  private async compare(did: string, url: URL, stored: PublicKey[]): Promise<DocumentDrift> {
    let document: Record<string, unknown>;
    try {
      document = await this.deps.read(did, url);
    } catch (err) {
      const error = err instanceof ServiceError ? err.message : 'the document could not be read';
      return { url: url.href, ok: false, missing: [], extra: [], changed: [], error };
    }
    const listed = listedKeys(document);
    const missing: string[] = [];
    const changed: string[] = [];
    for (const key of stored) {
      const found = listed.get(key.kid);
      if (!found?.relationships.has(RELATIONSHIP[key.purpose])) missing.push(key.kid);
      else if (found.x !== key.publicJwk.x || found.y !== key.publicJwk.y) changed.push(key.kid);
    }
    const extra = [...listed.keys()].filter((kid) => !stored.some((k) => k.kid === kid));
    return { url: url.href, ok: missing.length + extra.length + changed.length === 0, missing, extra, changed, error: null };
  }
}

/** The keys a DID document lists, by fragment, with their coordinates and the relationships naming them. */
function listedKeys(doc: Record<string, unknown>): Map<string, { x: unknown; y: unknown; relationships: Set<string> }> {
  const out = new Map<string, { x: unknown; y: unknown; relationships: Set<string> }>();
  const fragment = (id: unknown) => (typeof id === 'string' ? (id.split('#')[1] ?? '') : '');
  for (const m of Array.isArray(doc.verificationMethod) ? doc.verificationMethod : []) {
    if (!isObject(m) || !isObject(m.publicKeyJwk)) continue;
    out.set(fragment(m.id), { x: m.publicKeyJwk.x, y: m.publicKeyJwk.y, relationships: new Set() });
  }
  for (const relationship of ['assertionMethod', 'authentication']) {
    for (const ref of Array.isArray(doc[relationship]) ? (doc[relationship] as unknown[]) : []) {
      out.get(fragment(isObject(ref) ? ref.id : ref))?.relationships.add(relationship);
    }
  }
  return out;
}
