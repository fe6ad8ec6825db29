import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { publicP256 } from '../../../core/did-web.ts';
import type {
  GeneratedKey,
  KeyBackend,
  KeyBackendHealth,
  KeyObjectState,
  KeyOwner,
  PrivateKeyRef,
} from '../../../ports/key-backend.ts';
import type { KeyVault } from '../../../ports/key-vault.ts';

/** The sealing context binds a sealed blob to its owner and kid: a row copied onto another key fails to open. */
export const sealContext = (owner: KeyOwner, kid: string) =>
  'authority' in owner ? 'openrail:certificate-authority:platform' : `openrail:signing-key:${owner.tenant}:${kid}`;

/** Opened keys kept at most; a deployment with more active keys than this opens some again. */
const OPENED_LIMIT = 4096;

/**
 * Keys generated and used in this process, their private JWK sealed under the master key in the
 * key's row (OPENRAIL_KEYS=sealed, the default).
 */
export class SealedKeyBackend implements KeyBackend {
  readonly kind = 'sealed';
  // Opened private keys by their sealed blob: the blob names one key under one context.
  private readonly opened = new Map<string, KeyObject>();

  constructor(private readonly vault: KeyVault) {}

  async generate(owner: KeyOwner): Promise<GeneratedKey> {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = publicP256(await exportJWK(publicKey));
    const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
    const sealed = this.vault.seal(JSON.stringify(await exportJWK(privateKey)), sealContext(owner, kid));
    return { publicJwk, kid, ref: { backend: 'sealed', sealed } };
  }

  async sign(owner: KeyOwner, kid: string, ref: PrivateKeyRef, data: Uint8Array): Promise<Uint8Array> {
    return sign('sha256', data, { key: this.open(owner, kid, ref), dsaEncoding: 'ieee-p1363' });
  }

  async inspect(owner: KeyOwner, kid: string, ref: PrivateKeyRef): Promise<KeyObjectState> {
    try {
      this.open(owner, kid, ref);
      return { present: true };
    } catch {
      return { present: false };
    }
  }

  async destroy(): Promise<boolean> {
    return false;
  }

  async health(): Promise<KeyBackendHealth> {
    return { kind: 'sealed', reachable: true, loggedIn: true };
  }

  async close(): Promise<void> {
    this.opened.clear();
  }

  private open(owner: KeyOwner, kid: string, ref: PrivateKeyRef): KeyObject {
    if (ref.backend !== 'sealed')
      throw new Error(`key ${kid} is kept in a PKCS#11 token, and this deployment keeps its keys sealed`);
    const cached = this.opened.get(ref.sealed);
    if (cached) return cached;
    const jwk = JSON.parse(this.vault.open(ref.sealed, sealContext(owner, kid))) as import('node:crypto').JsonWebKey;
    const key = createPrivateKey({ key: jwk, format: 'jwk' });
    if (this.opened.size >= OPENED_LIMIT) this.opened.clear();
    this.opened.set(ref.sealed, key);
    return key;
  }
}
