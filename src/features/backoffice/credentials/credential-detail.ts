import type { IssuerUrls } from '../../../core/issuer-urls.ts';
import { iso, isoOrNull } from '../../../http/admin/kit.ts';
import type { CredentialRow } from '../../../ports/issuance-views.ts';
import type { KernelViews } from '../../../ports/kernel-views.ts';
import type { OffersViews } from '../../../ports/offers-views.ts';
import type { TypeService } from '../../credential-types/type-service.ts';
import { credentialView } from './schemas.ts';

/** What a credential's detail reads beside its record: its offer's, and the audit entries that mark both. */
export interface CredentialDetailReads {
  offers: Pick<OffersViews, 'offer'>;
  kernel: Pick<KernelViews, 'auditMark'>;
}

/**
 * One credential as support reads it (docs/backoffice/views.md, "One credential"): its record, the
 * offer it was collected from (without the subject, which is erased at collection), and who
 * created the offer and who revoked the credential, from the audit log. Never a claim value.
 */
export async function credentialDetail(views: CredentialDetailReads, types: TypeService, urls: IssuerUrls, c: CredentialRow) {
  const [offer, offered, revoked, type] = await Promise.all([
    views.offers.offer(c.offerId, c.tenant),
    views.kernel.auditMark('offer.created', c.offerId, c.tenant),
    c.revokedAt === null ? undefined : views.kernel.auditMark('credential.revoked', c.id, c.tenant),
    types.find(c.tenant, c.typeId),
  ]);
  return {
    ...credentialView(urls, c),
    typeName: type?.name ?? null,
    offer: offer
      ? {
          offerId: offer.id,
          createdAt: iso(offer.createdAt),
          createdBy: offered?.actor ?? null,
          auditSeq: offered?.seq ?? null,
          expiresAt: iso(offer.expiresAt),
          redeemedAt: isoOrNull(offer.redeemedAt),
          collectedAt: isoOrNull(offer.collectedAt),
        }
      : null,
    revokedBy: revoked?.actor ?? null,
    revocationAuditSeq: revoked?.seq ?? null,
  };
}
