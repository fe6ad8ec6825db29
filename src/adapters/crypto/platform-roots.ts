import { createPublicKey, verify } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { ServiceError } from '../../core/errors.ts';
import type { KeyBackend, PrivateKeyRef } from '../../ports/key-backend.ts';
import {
  type CertificateBase64,
  type KeyCertificate,
  type KeyCertifier,
  type PreparedRoot,
  ROOTS_REFRESH_MS,
  type RootReplacement,
  type RootState,
} from '../../ports/key-certifier.ts';
import type { KeyPurpose } from '../../ports/signing-key-store.ts';
import { afterCommit } from '../sql/ambient.ts';
import {
  BACKDATE_MS,
  type CertifierOptions,
  certifyUnder,
  DAY_MS,
  KEY_CERTIFICATE_DAYS,
  PLATFORM,
  ROOT_VALIDITY_DAYS,
} from './platform-ca.ts';
import { type AuthorityKey, createRootCertificate, notAfterOf, publicJwkOf, subjectKeyIdOf, toPem } from './x509.ts';

/**
 * A replaced root stays published while a certificate it issued may be presented: one issued just
 * before its successor took over lives KEY_CERTIFICATE_DAYS, and renewal may lag a day at most.
 */
const REPLACED_PUBLISHED_MS = (KEY_CERTIFICATE_DAYS + 1) * DAY_MS;

/**
 * The platform roots: the first is made on the first start where the deployment keeps its keys
 * (sealed under the master key, or in the token, like signing keys) and read on every later one.
 * Several processes starting together agree on one root: the first stored wins, and the others'
 * keys are destroyed. Replacements (RootReplacement) are read again every ROOTS_REFRESH_MS.
 */
export async function openPlatformCertifier(opts: CertifierOptions): Promise<PlatformCertifier> {
  if ((await opts.store.list()).length === 0) {
    const made = await opts.backend.generate(PLATFORM);
    const now = opts.clock.now();
    const certificate = await selfSigned(
      opts,
      made.kid,
      made.ref,
      made.publicJwk,
      `${opts.platformName} root CA (${opts.publicUrl.host})`,
    );
    const first = { id: 'platform', certificate, privateKey: made.ref, createdAt: now, activeFrom: now };
    if (!(await opts.store.putIfAbsent(first))) await opts.backend.destroy(made.ref);
  }
  const certifier = new PlatformCertifier(opts);
  await certifier.refresh();
  return certifier;
}

/** A self-signed root certificate for a key the backend holds. */
function selfSigned(opts: CertifierOptions, kid: string, ref: PrivateKeyRef, publicJwk: JWK, commonName: string) {
  const now = opts.clock.now();
  return createRootCertificate({
    subject: { commonName },
    key: { publicJwk, sign: (data) => opts.backend.sign(PLATFORM, kid, ref, data) },
    validity: { notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(now + ROOT_VALIDITY_DAYS * DAY_MS) },
  });
}

/** The stored authority key `ref`, signing through the backend, and its thumbprint; its public key is the certificate's. */
async function platformKey(
  backend: KeyBackend,
  certificate: CertificateBase64,
  ref: PrivateKeyRef,
): Promise<{ key: AuthorityKey; kid: string }> {
  const publicJwk = await publicJwkOf(certificate);
  const kid = await calculateJwkThumbprint(publicJwk as JWK, 'sha256');
  // A sealed key that does not open is a master key that is not the deployment's: the start stops.
  // A token key that is not there (the token lost, the object deleted) does not stop it: the
  // service starts, certifying answers signing_unavailable, health says so, and the root can be
  // replaced (docs/keys.md, "When the token is lost").
  if (ref.backend === 'sealed' && !(await backend.inspect(PLATFORM, kid, ref)).present) {
    throw new Error(`the platform certificate authority's key (${kid}) cannot be opened with this master key`);
  }
  return { key: { publicJwk, sign: (data) => backend.sign(PLATFORM, kid, ref, data) }, kid };
}

/** A stored root, opened: its key is null once destroyed. */
interface OpenRoot {
  id: string;
  certificate: CertificateBase64;
  pem: string;
  keyId: string;
  key: AuthorityKey | null;
  /** Where its key is, and the key's thumbprint, while it has one: health asks the backend about it. */
  ref: { kid: string; privateKey: PrivateKeyRef } | null;
  activeFrom: number;
  notAfter: number;
}

const pendingRefusal = () =>
  new ServiceError(
    'root_replacement_pending',
    'A new platform root already waits to take over; another replacement can be asked for once it has.',
  );

/**
 * The platform roots as this process knows them (read again every ROOTS_REFRESH_MS): the one in
 * force is the latest whose `activeFrom` has come, and which one that is follows the clock, so
 * every process switches at the same moment without being told.
 */
export class PlatformCertifier implements KeyCertifier, RootReplacement {
  private roots: OpenRoot[] = [];
  /** Roots this process prepared, opened: stored, they are published here without reading them back. */
  private readonly prepared = new WeakMap<PreparedRoot, Omit<OpenRoot, 'id' | 'activeFrom'>>();

  constructor(private readonly opts: CertifierOptions) {}

  /** The root in force at `now` (the first one, should the clock stand before it). */
  private inForce(now = this.opts.clock.now()): OpenRoot {
    let found = this.roots[0];
    for (const root of this.roots) if (root.activeFrom <= now) found = root;
    if (!found) throw new Error('the platform certifier has not read its roots');
    return found;
  }

  /** The roots relying parties should trust now: in force, waiting to take over, replaced but still anchoring. */
  private published(now = this.opts.clock.now()): OpenRoot[] {
    const current = this.inForce(now);
    const index = this.roots.indexOf(current);
    const waiting = this.roots.slice(index + 1);
    const replaced = this.roots
      .slice(0, index)
      .filter((root, i) => (this.roots[i + 1]?.activeFrom ?? 0) + REPLACED_PUBLISHED_MS > now && root.notAfter > now)
      .reverse();
    return [current, ...waiting, ...replaced];
  }

  get anchorPem(): string {
    return this.published()
      .map((r) => r.pem)
      .join('');
  }

  get authorityKeyId(): string {
    return this.inForce().keyId;
  }

  get authorityKeyIds(): readonly string[] {
    return this.published().map((r) => r.keyId);
  }

  get notAfter(): number {
    return this.inForce().notAfter;
  }

  certify(tenant: string, purpose: KeyPurpose, publicJwk: JWK): Promise<KeyCertificate> {
    const root = this.inForce();
    if (!root.key) throw new Error(`the platform root in force (${root.id}) has no key`);
    const authority = {
      certificate: root.certificate,
      key: root.key,
      intermediates: [],
      anchor: root.certificate,
      notAfter: root.notAfter,
    };
    return certifyUnder(authority, this.opts, tenant, purpose, publicJwk);
  }

  async refresh(): Promise<void> {
    const known = new Map(this.roots.map((r) => [r.id, r]));
    const roots: OpenRoot[] = [];
    for (const stored of await this.opts.store.list()) {
      const was = known.get(stored.id);
      if (was && (was.key !== null) === (stored.privateKey !== null)) {
        roots.push({ ...was, activeFrom: stored.activeFrom });
        continue;
      }
      const opened = stored.privateKey ? await platformKey(this.opts.backend, stored.certificate, stored.privateKey) : null;
      roots.push({
        id: stored.id,
        certificate: stored.certificate,
        pem: toPem(stored.certificate),
        keyId: subjectKeyIdOf(stored.certificate),
        key: opened?.key ?? null,
        ref: opened && stored.privateKey ? { kid: opened.kid, privateKey: stored.privateKey } : null,
        activeFrom: stored.activeFrom,
        notAfter: notAfterOf(stored.certificate),
      });
    }
    if (roots.length === 0) throw new Error('no platform root is stored');
    this.roots = roots;
  }

  describe(): RootState[] {
    const now = this.opts.clock.now();
    const current = this.inForce(now);
    const published = new Set(this.published(now));
    return this.roots.map((root) => ({
      authorityKeyId: root.keyId,
      state: root === current ? 'in_force' : root.activeFrom > now ? 'waiting' : 'replaced',
      activeFrom: root.activeFrom,
      notAfter: root.notAfter,
      published: published.has(root),
      keyDestroyed: root.key === null,
    }));
  }

  async keyInForce(): Promise<boolean | null> {
    const { ref } = this.inForce();
    if (!ref) return false;
    return this.opts.backend.inspect(PLATFORM, ref.kid, ref.privateKey).then(
      (state) => state.present,
      () => null,
    );
  }

  /**
   * Each root that still holds a key signs a probe where it is kept, and the signature is verified
   * with its certificate's public key (a restore drill): the problems, each naming the root.
   */
  async drill(): Promise<{ checked: number; problems: string[] }> {
    const probe = Buffer.from(`openrail root drill ${this.opts.clock.now()}`);
    const problems: string[] = [];
    const holding = this.roots.filter((r) => r.key !== null && r.ref !== null);
    for (const root of holding) {
      const ref = root.ref?.privateKey;
      const where = ref?.backend === 'pkcs11' ? ` (object ${ref.label} in ${ref.token})` : '';
      try {
        const signature = await (root.key as AuthorityKey).sign(probe);
        const publicKey = createPublicKey({ key: (root.key as AuthorityKey).publicJwk, format: 'jwk' });
        if (!verify('sha256', probe, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)) {
          throw new Error('its signature does not verify with its certificate');
        }
      } catch (err) {
        problems.push(`platform root ${root.keyId}${where}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return { checked: holding.length, problems };
  }

  async check(): Promise<void> {
    const now = this.opts.clock.now();
    if ((await this.opts.store.list()).some((r) => r.activeFrom > now)) throw pendingRefusal();
  }

  async prepare(): Promise<PreparedRoot> {
    const made = await this.opts.backend.generate(PLATFORM);
    const day = new Date(this.opts.clock.now()).toISOString().slice(0, 10);
    const name = `${this.opts.platformName} root CA (${this.opts.publicUrl.host}, ${day})`;
    const certificate = await selfSigned(this.opts, made.kid, made.ref, made.publicJwk, name);
    const root = { certificate, privateKey: made.ref };
    this.prepared.set(root, {
      certificate,
      pem: toPem(certificate),
      keyId: subjectKeyIdOf(certificate),
      key: { publicJwk: made.publicJwk, sign: (data) => this.opts.backend.sign(PLATFORM, made.kid, made.ref, data) },
      ref: { kid: made.kid, privateKey: made.ref },
      notAfter: notAfterOf(certificate),
    });
    return root;
  }

  async discard(root: PreparedRoot): Promise<void> {
    await this.opts.backend.destroy(root.privateKey);
  }

  async schedule(root: PreparedRoot, activeFrom: number) {
    const now = this.opts.clock.now();
    const stored = await this.opts.store.list();
    const current = stored.filter((r) => r.activeFrom <= now).at(-1) ?? stored[0];
    if (!current || stored.some((r) => r.activeFrom > now)) throw pendingRefusal();
    // The id is the root's place in line: two replacements approved at once cannot both be stored.
    const next = { id: `root-${stored.length + 1}`, ...root, createdAt: now, activeFrom };
    if (!(await this.opts.store.putIfAbsent(next))) throw pendingRefusal();
    // This process publishes it as soon as it is committed; the others within ROOTS_REFRESH_MS.
    const opened = this.prepared.get(root);
    afterCommit(() => {
      if (!opened) return void this.refresh().catch(() => undefined);
      if (!this.roots.some((r) => r.id === next.id)) this.roots = [...this.roots, { ...opened, id: next.id, activeFrom }];
    });
    return { authorityKeyId: subjectKeyIdOf(root.certificate), previousAuthorityKeyId: subjectKeyIdOf(current.certificate) };
  }

  async retireReplaced(certifies: (authorityKeyId: string) => Promise<number>): Promise<string[]> {
    await this.refresh();
    const now = this.opts.clock.now();
    const retired: string[] = [];
    for (const [i, root] of this.roots.entries()) {
      const successor = this.roots[i + 1];
      // Every process has certified with the successor for a while (none still holds this one in force).
      if (!root.ref || !successor || successor.activeFrom + 2 * ROOTS_REFRESH_MS > now) continue;
      if ((await certifies(root.keyId)) > 0) continue;
      if (!(await this.opts.store.retire(root.id, now))) continue;
      // A token that cannot delete just now leaves an object no row names (docs/keys.md).
      await this.opts.backend.destroy(root.ref.privateKey).catch(() => undefined);
      retired.push(root.keyId);
    }
    if (retired.length > 0) await this.refresh();
    return retired;
  }
}
