import type { Clock } from '../../core/clock.ts';
import type { DidDocument } from '../../core/did-web.ts';
import { assertionKey } from '../../core/verifier/did-keys.ts';
import type { TenantService } from '../tenants/tenant-service.ts';

/** How long a tenant's DID document is used before it is read again. */
export const ISSUER_DOCUMENT_TTL_MS = 30_000;
const MAX_DOCUMENTS = 1024;

/**
 * The DID documents of this deployment's issuers, as the hosted verifier judges presentations by
 * them (docs/scaling.md, "Round trips"): each is kept ISSUER_DOCUMENT_TTL_MS, and read again at
 * once when a presentation names a key it does not list (a key published since, by a rotation on
 * any process). A key retired meanwhile may stay in it that long: retirement comes only once
 * every credential the key signed is revoked or expired (docs/operations.md, "Key rotation"),
 * and revocation and expiry are judged fresh on every presentation.
 */
export class IssuerDocuments {
  private readonly documents = new Map<string, { document: DidDocument; until: number }>();

  constructor(
    private readonly tenants: Pick<TenantService, 'didDocument'>,
    private readonly clock: Clock,
  ) {}

  /** The document of issuer `tenant`, for a credential whose issuer JWT names `kid`. */
  async of(tenant: string, kid: unknown): Promise<DidDocument> {
    const now = this.clock.now();
    const kept = this.documents.get(tenant);
    if (kept && kept.until > now && assertionKey(kept.document, kid)) return kept.document;
    const document = await this.tenants.didDocument(tenant);
    if (this.documents.size >= MAX_DOCUMENTS) this.documents.clear();
    this.documents.set(tenant, { document, until: now + ISSUER_DOCUMENT_TTL_MS });
    return document;
  }
}
