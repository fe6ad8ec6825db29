import { ChainVerifier, certificatesOfPem } from '../../adapters/crypto/x509.ts';
import type { Clock } from '../../core/clock.ts';
import { decodeJws, p256Jwk, p256Thumbprint } from '../../core/jose/es256.ts';
import { assertionKey } from '../../core/verifier/did-keys.ts';

/**
 * The issuer's key resolved by its certificate (HAIP 1.0 §6.1; docs/haip.md, "Verification"): a
 * credential of this deployment carries `x5c`, a chain that ends at the deployment's trust anchor
 * and certifies the very key its DID document lists for the credential's `kid` (the key the
 * presentation was verified with).
 */
export class IssuerCertificates {
  private chains?: ChainVerifier;

  constructor(
    /** The deployment's trust anchor, PEM (the platform root, or the operator's). */
    private readonly anchorPem: string,
    private readonly clock: Clock,
  ) {}

  /** Why the presentation's issuer JWT fails that, or undefined when it holds. */
  async problem(presentation: string, didDocument: Record<string, unknown>): Promise<string | undefined> {
    const header = decodeJws(presentation.split('~')[0] ?? '')?.header;
    const chain = header?.x5c;
    if (!Array.isArray(chain) || chain.length === 0 || !chain.every((c) => typeof c === 'string')) {
      return 'Under HAIP the credential must carry its issuer key’s certificate chain (x5c).';
    }
    this.chains ??= new ChainVerifier(certificatesOfPem(this.anchorPem));
    const certified = await this.chains.keyOf(chain as string[], new Date(this.clock.now()));
    if (!certified) {
      return 'The credential’s x5c chain does not end at this deployment’s trust anchor, or a certificate of it is not valid now.';
    }
    const listed = assertionKey(didDocument, header?.kid);
    const jwk = p256Jwk(certified);
    if (!listed || !jwk || p256Thumbprint(jwk) !== p256Thumbprint(listed.jwk)) {
      return 'The credential’s x5c certifies another key than the one its issuer’s DID document lists for its kid.';
    }
    return undefined;
  }
}
