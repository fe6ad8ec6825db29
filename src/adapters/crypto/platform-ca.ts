import { isIP } from 'node:net';
import type { JWK } from 'jose';
import type { Clock } from '../../core/clock.ts';
import { platformDid, tenantDid } from '../../core/did-web.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { ROOT_SLUG } from '../../core/slug.ts';
import type { KeyBackend, KeyOwner } from '../../ports/key-backend.ts';
import type {
  CertificateAuthorityStore,
  CertificateBase64,
  KeyCertificate,
  KeyCertificateRenewals,
  KeyCertifier,
} from '../../ports/key-certifier.ts';
import type { KeyPurpose } from '../../ports/signing-key-store.ts';
import { type AuthorityKey, certifyKey, fileAuthorityKey, parseAuthority, subjectKeyIdOf, toPem } from './x509.ts';

export const DAY_MS = 24 * 60 * 60 * 1000;
/** The platform root's life: long, as a trust anchor's is; replacing it is an operator's decision (docs/haip.md). */
export const ROOT_VALIDITY_DAYS = 20 * 365;
/** A key certificate's life; renewal gives a key a fresh one well before it ends. */
export const KEY_CERTIFICATE_DAYS = 365;
/** Renewal looks for certificates ending within this. */
export const RENEW_WITHIN_DAYS = 60;
/** Certificates start a little in the past, for relying parties whose clocks run behind. */
export const BACKDATE_MS = 5 * 60 * 1000;

export const PLATFORM: KeyOwner = { authority: 'platform' };

/** The authority that signs key certificates, opened: its certificate, key, intermediates and anchor. */
export interface Authority {
  certificate: CertificateBase64;
  key: AuthorityKey;
  intermediates: CertificateBase64[];
  anchor: CertificateBase64;
  notAfter: number;
}

/** An operator's own chain: PEM text of the certificates and of the issuing CA's private key. */
export interface ExternalAuthority {
  chainPem: string;
  privateKeyPem: string;
}

export interface CertifierOptions {
  store: CertificateAuthorityStore;
  /** Where the platform root's key is made and signs (OPENRAIL_KEYS). */
  backend: KeyBackend;
  clock: Clock;
  urls: IssuerUrls;
  publicUrl: URL;
  platformName: string;
}

/**
 * The operator's own chain (OPENRAIL_CA_CHAIN_FILE) as the certifier; the platform roots are
 * opened by openPlatformCertifier (platform-roots.ts).
 */
export async function openExternalCertifier(opts: CertifierOptions & { external: ExternalAuthority }): Promise<KeyCertifier> {
  const parsed = await parseAuthority(opts.external.chainPem, opts.external.privateKeyPem, new Date(opts.clock.now()));
  return new ExternalCertifier(
    { ...parsed, key: fileAuthorityKey(parsed.privateJwk), notAfter: parsed.notAfter.getTime() },
    opts,
  );
}

/** Leaf certificates for `publicJwk` under `authority`: the key's, then what lies between it and the anchor. */
export async function certifyUnder(
  authority: Authority,
  opts: CertifierOptions,
  tenant: string,
  purpose: KeyPurpose,
  publicJwk: JWK,
): Promise<KeyCertificate> {
  const now = opts.clock.now();
  // Whole seconds, as the certificate states them, and never past the authority's own end.
  const notAfter = Math.floor(Math.min(now + KEY_CERTIFICATE_DAYS * DAY_MS, authority.notAfter) / 1000) * 1000;
  const issuer = opts.urls.issuer(tenant);
  const did = tenant === ROOT_SLUG ? platformDid(opts.publicUrl) : tenantDid(opts.publicUrl, tenant);
  const host = opts.publicUrl.hostname;
  const leaf = await certifyKey({
    ca: { certificate: authority.certificate, key: authority.key },
    subject: {
      commonName: `${issuer} (${purpose})`,
      uris: [did, issuer],
      ...(isIP(host) === 0 ? { dnsNames: [host] } : {}),
    },
    publicJwk,
    validity: { notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(notAfter) },
  });
  // x5c: the key's certificate, then what lies between it and the anchor; never the anchor itself.
  const issuing = authority.certificate === authority.anchor ? [] : [authority.certificate];
  return { chain: [leaf, ...issuing, ...authority.intermediates], notAfter, authority: subjectKeyIdOf(authority.certificate) };
}

/** The operator's own chain (OPENRAIL_CA_CHAIN_FILE): one authority, replaced by changing the file. */
class ExternalCertifier implements KeyCertifier {
  readonly anchorPem: string;
  readonly authorityKeyId: string;
  readonly authorityKeyIds: readonly string[];
  readonly notAfter: number;

  constructor(
    private readonly authority: Authority,
    private readonly opts: CertifierOptions,
  ) {
    this.anchorPem = toPem(authority.anchor);
    this.authorityKeyId = subjectKeyIdOf(authority.certificate);
    this.authorityKeyIds = [this.authorityKeyId];
    this.notAfter = authority.notAfter;
  }

  certify(tenant: string, purpose: KeyPurpose, publicJwk: JWK): Promise<KeyCertificate> {
    return certifyUnder(this.authority, this.opts, tenant, purpose, publicJwk);
  }
}

/** At most this many keys are renewed per run; the job runs again soon after. */
export const RENEWAL_BATCH = 500;

/**
 * Gives every published key lacking a certificate, holding one that ends within
 * RENEW_WITHIN_DAYS, or one of another authority, a fresh certificate: keys made before
 * certificates existed, keys whose certificate is ageing, and every key when the operator changes
 * the authority. Answers how many were renewed: a batch at most, the next run goes on.
 */
export async function renewKeyCertificates(
  renewals: KeyCertificateRenewals,
  certifier: KeyCertifier,
  now: number,
): Promise<number> {
  let renewed = 0;
  // Near the authority's own end a renewal can only reach that end: a certificate already there is
  // not due again (else every run would renew the same keys for nothing).
  const before = Math.min(now + RENEW_WITHIN_DAYS * DAY_MS, certifier.notAfter);
  for (const key of await renewals.due(before, certifier.authorityKeyId, RENEWAL_BATCH)) {
    if (await renewals.renew(key, await certifier.certify(key.tenant, key.purpose, key.publicJwk))) renewed++;
  }
  return renewed;
}

/** Whether the authority itself ends within the renewal window: then only replacing it helps (docs/haip.md). */
export const authorityEndingSoon = (certifier: KeyCertifier, now: number) =>
  certifier.notAfter < now + RENEW_WITHIN_DAYS * DAY_MS;
