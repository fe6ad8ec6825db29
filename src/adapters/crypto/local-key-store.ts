import { createPrivateKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, type JWTPayload } from 'jose';
import type { Clock } from '../../core/clock.ts';
import { publicP256 } from '../../core/did-web.ts';
import { ServiceError } from '../../core/errors.ts';
import { signEs256 } from '../../core/jose/es256.ts';
import type { KeyCertifier } from '../../ports/key-certifier.ts';
import { ACTIVE_KEY_TTL_MS, type JwsSigner, type KeyStore, type PublicKey } from '../../ports/key-store.ts';
import type { KeyVault } from '../../ports/key-vault.ts';
import type { KeyPurpose, SigningKeyStore, StoredSigningKey } from '../../ports/signing-key-store.ts';
import { afterCommit } from '../sql/ambient.ts';

const sealContext = (tenant: string, kid: string) => `openrail:signing-key:${tenant}:${kid}`;

/** Keys generated and used in this process, sealed at rest in the database under the master key. */
export class LocalKeyStore implements KeyStore {
  // Opened private keys, by tenant and kid. A cache only: the database stays the source of truth.
  private readonly opened = new Map<string, KeyObject>();
  private readonly activeCache = new Map<string, { key: StoredSigningKey; until: number }>();

  constructor(
    private readonly keys: SigningKeyStore,
    private readonly vault: KeyVault,
    private readonly clock: Clock,
    private readonly certifier: KeyCertifier,
  ) {}

  async prepareKey(tenant: string, purpose: KeyPurpose): Promise<StoredSigningKey> {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = publicP256(await exportJWK(publicKey));
    const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
    const privateJwk = await exportJWK(privateKey);
    return {
      tenant,
      kid,
      purpose,
      publicJwk,
      sealedPrivateJwk: this.vault.seal(JSON.stringify(privateJwk), sealContext(tenant, kid)),
      createdAt: this.clock.now(),
      certificate: await this.certifier.certify(tenant, purpose, publicJwk),
    };
  }

  async ensureKey(tenant: string, purpose: KeyPurpose): Promise<PublicKey> {
    const existing = await this.keys.active(tenant, purpose);
    if (existing) return toPublic(existing);
    await this.keys.insert(await this.prepareKey(tenant, purpose));
    // Another process may have won the race; whichever key is active is the tenant's key.
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

  retire(tenant: string, kid: string): Promise<boolean> {
    return this.keys.retire(tenant, kid, this.clock.now());
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
    const privateKey = this.open(key);
    return {
      ...toPublic(key),
      ...(key.certificate ? { x5c: key.certificate.chain } : {}),
      sign: (header, payload) => signEs256(privateKey, header, payload),
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

  private open(key: StoredSigningKey): KeyObject {
    const cacheKey = `${key.tenant}\u0000${key.kid}`;
    const cached = this.opened.get(cacheKey);
    if (cached) return cached;
    const jwk = JSON.parse(this.vault.open(key.sealedPrivateJwk, sealContext(key.tenant, key.kid))) as JWK;
    const opened = createPrivateKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' });
    afterCommit(() => this.opened.set(cacheKey, opened));
    return opened;
  }
}

const toPublic = (k: StoredSigningKey): PublicKey => ({ kid: k.kid, purpose: k.purpose, publicJwk: k.publicJwk });
