import { isIP } from 'node:net';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Clock } from '../../core/clock.ts';
import { platformDid, tenantDid } from '../../core/did-web.ts';
import { ServiceError } from '../../core/errors.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import { ROOT_SLUG } from '../../core/slug.ts';
import type { KeyBackend, KeyOwner, PrivateKeyRef } from '../../ports/key-backend.ts';
import type {
  CertificateAuthorityStore,
  CertificateBase64,
  KeyCertificate,
  KeyCertificateRenewals,
  KeyCertifier,
} from '../../ports/key-certifier.ts';
import type { KeyPurpose } from '../../ports/signing-key-store.ts';
import {
  type AuthorityKey,
  certifyKey,
  createRootCertificate,
  fileAuthorityKey,
  notAfterOf,
  parseAuthority,
  publicJwkOf,
  subjectKeyIdOf,
  toPem,
} from './x509.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The platform root's life: long, as a trust anchor's is; replacing it is an operator's decision (docs/haip.md). */
export const ROOT_VALIDITY_DAYS = 20 * 365;
/** A key certificate's life; renewal gives a key a fresh one well before it ends. */
export const KEY_CERTIFICATE_DAYS = 365;
/** Renewal looks for certificates ending within this. */
export const RENEW_WITHIN_DAYS = 60;
/** Certificates start a little in the past, for relying parties whose clocks run behind. */
const BACKDATE_MS = 5 * 60 * 1000;

const PLATFORM: KeyOwner = { authority: 'platform' };

/** The authority that signs key certificates, opened: its certificate, key, intermediates and anchor. */
interface Authority {
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
  external?: ExternalAuthority;
}

/**
 * The service's certifier: the operator's chain when one is configured, otherwise the platform
 * root, made on the first start where the deployment keeps its keys (sealed under the master key,
 * or in the token, like signing keys) and read on every later one. Several processes starting
 * together agree on one root: the first stored wins, and the others' keys are destroyed.
 */
export async function openCertifier(opts: CertifierOptions): Promise<KeyCertifier> {
  const authority = opts.external ? await external(opts.external, opts.clock) : await platformRoot(opts);
  return new AuthorityCertifier(authority, opts);
}

async function external(given: ExternalAuthority, clock: Clock): Promise<Authority> {
  const parsed = await parseAuthority(given.chainPem, given.privateKeyPem, new Date(clock.now()));
  return { ...parsed, key: fileAuthorityKey(parsed.privateJwk), notAfter: parsed.notAfter.getTime() };
}

/** The stored authority key `ref`, signing through the backend; its public key is the certificate's. */
async function platformKey(backend: KeyBackend, certificate: CertificateBase64, ref: PrivateKeyRef): Promise<AuthorityKey> {
  const publicJwk = await publicJwkOf(certificate);
  const kid = await calculateJwkThumbprint(publicJwk as JWK, 'sha256');
  // A key the backend says is not there (sealed under another master key, gone from the token)
  // stops the start; a token that cannot be asked just now does not: signing waits for it.
  let present = true;
  try {
    present = (await backend.inspect(PLATFORM, kid, ref)).present;
  } catch (err) {
    if (!(err instanceof ServiceError && err.code === 'signing_unavailable')) throw err;
  }
  if (!present) throw new Error(`the platform certificate authority's key (${kid}) cannot be opened where it is kept`);
  return { publicJwk, sign: (data) => backend.sign(PLATFORM, kid, ref, data) };
}

async function platformRoot(opts: CertifierOptions): Promise<Authority> {
  let stored = await opts.store.get();
  if (!stored) {
    const made = await opts.backend.generate(PLATFORM);
    const now = opts.clock.now();
    const certificate = await createRootCertificate({
      subject: { commonName: `${opts.platformName} root CA (${opts.publicUrl.host})` },
      key: { publicJwk: made.publicJwk, sign: (data) => opts.backend.sign(PLATFORM, made.kid, made.ref, data) },
      validity: { notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(now + ROOT_VALIDITY_DAYS * DAY_MS) },
    });
    if (!(await opts.store.putIfAbsent({ certificate, privateKey: made.ref, createdAt: now }))) {
      await opts.backend.destroy(made.ref);
    }
    stored = await opts.store.get();
    if (!stored) throw new Error('the platform certificate authority was stored but cannot be read back');
  }
  const key = await platformKey(opts.backend, stored.certificate, stored.privateKey);
  const notAfter = notAfterOf(stored.certificate);
  return { certificate: stored.certificate, key, intermediates: [], anchor: stored.certificate, notAfter };
}

class AuthorityCertifier implements KeyCertifier {
  readonly anchorPem: string;
  readonly authorityKeyId: string;
  readonly notAfter: number;

  constructor(
    private readonly authority: Authority,
    private readonly opts: CertifierOptions,
  ) {
    this.anchorPem = toPem(authority.anchor);
    this.authorityKeyId = subjectKeyIdOf(authority.certificate);
    this.notAfter = authority.notAfter;
  }

  async certify(tenant: string, purpose: KeyPurpose, publicJwk: JWK): Promise<KeyCertificate> {
    const now = this.opts.clock.now();
    // Whole seconds, as the certificate states them, and never past the authority's own end.
    const notAfter = Math.floor(Math.min(now + KEY_CERTIFICATE_DAYS * DAY_MS, this.authority.notAfter) / 1000) * 1000;
    const issuer = this.opts.urls.issuer(tenant);
    const did = tenant === ROOT_SLUG ? platformDid(this.opts.publicUrl) : tenantDid(this.opts.publicUrl, tenant);
    const host = this.opts.publicUrl.hostname;
    const leaf = await certifyKey({
      ca: { certificate: this.authority.certificate, key: this.authority.key },
      subject: {
        commonName: `${issuer} (${purpose})`,
        uris: [did, issuer],
        ...(isIP(host) === 0 ? { dnsNames: [host] } : {}),
      },
      publicJwk,
      validity: { notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(notAfter) },
    });
    // x5c: the key's certificate, then what lies between it and the anchor; never the anchor itself.
    const issuing = this.authority.certificate === this.authority.anchor ? [] : [this.authority.certificate];
    return { chain: [leaf, ...issuing, ...this.authority.intermediates], notAfter, authority: this.authorityKeyId };
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
