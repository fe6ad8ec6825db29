import type {
  GeneratedKey,
  KeyBackend,
  KeyBackendHealth,
  KeyBackendKind,
  KeyObjectState,
  KeyOwner,
  PrivateKeyRef,
} from '../../../ports/key-backend.ts';
import type { KeyVault } from '../../../ports/key-vault.ts';
import { type Meter, noMeter } from '../../../ports/meter.ts';
import { Pkcs11KeyBackend, type Pkcs11Options } from './pkcs11-backend.ts';
import { SealedKeyBackend } from './sealed-backend.ts';
import { signingUnavailable } from './unavailable.ts';

/** The deployment's key backend (OPENRAIL_KEYS, docs/keys.md). */
export type KeysConfig = { backend: 'sealed' } | ({ backend: 'pkcs11' } & Pkcs11Options);

/**
 * The backend a deployment uses: new keys are made in the configured one, and each stored key
 * signs where its reference says it lives. So a deployment that moves from `sealed` to `pkcs11`
 * keeps signing with its sealed keys until the four-eyes rotation has replaced each by a token key
 * (docs/decisions/0026-into-the-token-by-rotation.md); a token key never signs in a deployment
 * without a token.
 */
export class KeyBackends implements KeyBackend {
  readonly kind: KeyBackendKind;
  private readonly sealed: SealedKeyBackend;
  private readonly token: Pkcs11KeyBackend | undefined;

  constructor(
    config: KeysConfig,
    vault: KeyVault,
    private readonly meter: Meter = noMeter,
  ) {
    this.kind = config.backend;
    this.sealed = new SealedKeyBackend(vault);
    this.token = config.backend === 'pkcs11' ? new Pkcs11KeyBackend(config) : undefined;
  }

  generate(owner: KeyOwner): Promise<GeneratedKey> {
    return (this.token ?? this.sealed).generate(owner);
  }

  /** Signs where the key lives, counted and timed per backend (`openrail_signatures_total`, docs/operations.md). */
  async sign(owner: KeyOwner, kid: string, ref: PrivateKeyRef, data: Uint8Array): Promise<Uint8Array> {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const signature = await this.holding(ref, kid).sign(owner, kid, ref, data);
      this.meter.signature(ref.backend, true, seconds());
      return signature;
    } catch (err) {
      this.meter.signature(ref.backend, false, seconds());
      throw err;
    }
  }

  inspect(owner: KeyOwner, kid: string, ref: PrivateKeyRef): Promise<KeyObjectState> {
    return this.holding(ref, kid).inspect(owner, kid, ref);
  }

  destroy(ref: PrivateKeyRef): Promise<boolean> {
    return this.holding(ref, ref.backend === 'pkcs11' ? ref.label : 'sealed').destroy(ref);
  }

  health(): Promise<KeyBackendHealth> {
    return (this.token ?? this.sealed).health();
  }

  async close(): Promise<void> {
    await Promise.all([this.sealed.close(), this.token?.close()]);
  }

  private holding(ref: PrivateKeyRef, kid: string): KeyBackend {
    if (ref.backend === 'sealed') return this.sealed;
    if (this.token) return this.token;
    throw signingUnavailable(
      `key ${kid} lives in PKCS#11 token ${ref.token}, and this deployment has none (OPENRAIL_KEYS=sealed)`,
    );
  }
}
