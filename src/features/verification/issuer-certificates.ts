import type { Clock } from '../../core/clock.ts';
import { decodeJws } from '../../core/jose/es256.ts';
import { certificatesOfPem } from '../../core/pem.ts';
import { assertionKey } from '../../core/verifier/did-keys.ts';
import { type ChainCheck, certificateProblem, certifiedKeyOf } from '../../core/verifier/issuer-certificate.ts';
import type { CertificateChains, ChainsOf } from '../../ports/certificate-chains.ts';

/**
 * The issuer's key resolved by its certificate (HAIP 1.0 §6.1; docs/haip.md, "Verification"): a
 * credential of this deployment carries `x5c`, a chain that ends at the deployment's trust anchor
 * and certifies the very key its DID document lists for the credential's `kid` (the key the
 * presentation was verified with). The rule is the reference verifier's (core/verifier/issuer-certificate.ts).
 */
export class IssuerCertificates {
  private parsed?: { pem: string; anchors: string[]; chains: CertificateChains };

  constructor(
    /** The deployment's trust anchors, PEM (the platform roots, or the operator's): read each time, a root can be replaced. */
    private readonly anchorPem: () => string,
    private readonly clock: Clock,
    private readonly chainsOf: ChainsOf,
  ) {}

  /** Why the presentation's issuer JWT fails that, or undefined when it holds. */
  async problem(presentation: string, didDocument: Record<string, unknown>): Promise<string | undefined> {
    const header = decodeJws(presentation.split('~')[0] ?? '')?.header;
    const { anchors, check } = this.trust();
    const found = await certifiedKeyOf(header, anchors, this.clock.now() / 1000, check);
    return certificateProblem(found, assertionKey(didDocument, header?.kid)?.jwk);
  }

  /** The deployment's anchors now (parsed again only when they change), and the chain check under them. */
  trust(): { anchors: string[]; check: ChainCheck } {
    const pem = this.anchorPem();
    if (this.parsed?.pem !== pem) {
      const anchors = certificatesOfPem(pem);
      this.parsed = { pem, anchors, chains: this.chainsOf(anchors) };
    }
    const { anchors, chains } = this.parsed;
    return { anchors, check: (chain, _anchors, now) => chains.keyOf(chain, new Date(now * 1000)) };
  }
}
