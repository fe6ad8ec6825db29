import type { JWTPayload } from 'jose';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import { signEs256With } from '../../core/jose/es256.ts';
import type { KeyBackend } from '../../ports/key-backend.ts';
import type { KeyCertifier } from '../../ports/key-certifier.ts';
import { ACTIVE_KEY_TTL_MS, type JwsSigner, type KeyStore, type PublicKey } from '../../ports/key-store.ts';
import type { KeyPurpose, SigningKeyStore, StoredSigningKey } from '../../ports/signing-key-store.ts';
import { afterCommit } from '../sql/ambient.ts';

/**
 * The tenants' signing keys: their rows in the database (public key, kid, where the private part
 * is), their private parts wherever the key backend keeps them (sealed in the row, or in a PKCS#11
 * token: docs/keys.md).
 */
export class TenantKeyStore implements KeyStore {
  private readonly activeCache = new Map<string, { key: StoredSigningKey; until: number }>();

  constructor(
    private readonly keys: SigningKeyStore,
    private readonly backend: KeyBackend,
    private readonly clock: Clock,
    private readonly certifier: KeyCertifier,
  ) {}

  async prepareKey(tenant: string, purpose: KeyPurpose): Promise<StoredSigningKey> {
    const { publicJwk, kid, ref } = await this.backend.generate({ tenant, purpose });
    // A key that cannot be certified (the root's key unavailable) is not kept: nothing would name it.
    const certificate = await this.certifier.certify(tenant, purpose, publicJwk).catch(async (err: unknown) => {
      await this.backend.destroy(ref).catch(() => undefined);
      throw err;
    });
    return { tenant, kid, purpose, publicJwk, privateKey: ref, createdAt: this.clock.now(), certificate };
  }

  async discard(key: StoredSigningKey): Promise<void> {
    await this.backend.destroy(key.privateKey).catch(() => undefined);
  }

  async ensureKey(tenant: string, purpose: KeyPurpose): Promise<PublicKey> {
    const existing = await this.keys.active(tenant, purpose);
    if (existing) return toPublic(existing);
    const made = await this.prepareKey(tenant, purpose);
    if (!(await this.keys.insert(made))) {
      // Another process won the race; whichever key is active is the tenant's key, and ours goes.
      await this.discard(made);
    }
    const active = await this.keys.active(tenant, purpose);
    if (!active) throw new Error(`no active ${purpose} key for tenant ${tenant} after provisioning`);
    return toPublic(active);
  }

  async rotate(tenant: string, purpose: KeyPurpose, prepared?: StoredSigningKey): Promise<{ previous: string; current: string }> {
    if (prepared && (prepared.tenant !== tenant || prepared.purpose !== purpose)) {
      throw new Error(`a key prepared for ${prepared.tenant}/${prepared.purpose} cannot replace ${tenant}/${purpose}'s`);
    }
    const active = await this.keys.active(tenant, purpose);
    if (!active) throw new ServiceError('conflict', `Tenant ${tenant} has no ${purpose} key to rotate.`);
    const next = prepared ?? (await this.prepareKey(tenant, purpose));
    // Superseded first: the one-signing-key index then admits the new key.
    if (!(await this.keys.supersede(tenant, active.kid, next.createdAt)) || !(await this.keys.insert(next))) {
      throw new ServiceError('conflict', `The ${purpose} key of ${tenant} changed meanwhile; look again and retry.`);
    }
    afterCommit(() => this.activeCache.delete(`${tenant}\u0000${purpose}`));
    return { previous: active.kid, current: next.kid };
  }

  /**
   * Takes a superseded key out of the DID document, and once that has committed deletes its token
   * objects (a sealed key has nothing outside its row): nothing it signed can be presented any more
   * (the retirement job's rule). A token that cannot delete just now leaves an object no row names,
   * which signs nothing (docs/keys.md, "Rotation, retirement and objects no key names").
   */
  async retire(tenant: string, kid: string): Promise<boolean> {
    const key = (await this.keys.published(tenant)).find((k) => k.kid === kid);
    if (!(await this.keys.retire(tenant, kid, this.clock.now()))) return false;
    if (key?.privateKey.backend === 'pkcs11') {
      const ref = key.privateKey;
      afterCommit(() => void this.backend.destroy(ref).catch(() => undefined));
    }
    return true;
  }

  async activeKey(tenant: string, purpose: KeyPurpose): Promise<PublicKey | undefined> {
    const key = await this.keys.active(tenant, purpose);
    return key ? toPublic(key) : undefined;
  }

  async publishedKeys(tenant: string): Promise<PublicKey[]> {
    return (await this.keys.published(tenant)).map(toPublic);
  }

  async signer(tenant: string, purpose: KeyPurpose): Promise<JwsSigner> {
    const key = await this.activeForSigning(tenant, purpose);
    const owner = { tenant, purpose };
    return {
      ...toPublic(key),
      ...(key.certificate ? { x5c: key.certificate.chain } : {}),
      sign: (header, payload) =>
        signEs256With((input) => this.backend.sign(owner, key.kid, key.privateKey, input), header, payload),
      signBytes: (data) => this.backend.sign(owner, key.kid, key.privateKey, data),
    };
  }

  async signJwt(tenant: string, purpose: KeyPurpose, header: Record<string, unknown>, payload: JWTPayload): Promise<string> {
    return (await this.signer(tenant, purpose)).sign(header, payload);
  }

  /**
   * The active key, re-read from the database at most every ACTIVE_KEY_TTL_MS: signing is on every
   * issuance's path, and which key is active changes only when a key is provisioned or retired.
   */
  private async activeForSigning(tenant: string, purpose: KeyPurpose): Promise<StoredSigningKey> {
    const cacheKey = `${tenant}\u0000${purpose}`;
    const now = this.clock.now();
    const cached = this.activeCache.get(cacheKey);
    if (cached && cached.until > now) return cached.key;
    const key = await this.keys.active(tenant, purpose);
    if (!key) throw new Error(`tenant ${tenant} has no active ${purpose} key`);
    afterCommit(() => this.activeCache.set(cacheKey, { key, until: now + ACTIVE_KEY_TTL_MS }));
    return key;
  }
}

const toPublic = (k: StoredSigningKey): PublicKey => ({ kid: k.kid, purpose: k.purpose, publicJwk: k.publicJwk });
