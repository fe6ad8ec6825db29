import type { Static } from '@sinclair/typebox';
import { compactVerify, importJWK } from 'jose';
import type { Clock } from '../../core/clock.ts';
import { toSeconds } from '../../core/clock.ts';
import { ROOT_SLUG } from '../../core/slug.ts';
import type { KeyStore } from '../../ports/key-store.ts';
import type { Readiness } from './routes.ts';

export type ReadinessReport = Static<typeof Readiness>;

type SigningReadiness = ReadinessReport['readiness']['signing'];

/**
 * GET /readyz. Each probe does the real thing: a database round trip, and a signature made with
 * the platform's issuer key and verified with its published public key. The attempt and failure
 * counters are this instance's, since readiness is a property of one instance.
 */
export class ReadinessProbe {
  private attempts = 0;
  private failures = 0;

  constructor(
    private readonly pingDatabase: () => Promise<void>,
    private readonly keys: KeyStore,
    private readonly clock: Clock,
  ) {}

  async check(): Promise<ReadinessReport> {
    const db = await succeeds(this.pingDatabase);
    const issuer = db ? await this.keys.activeKey(ROOT_SLUG, 'issuer').catch(() => undefined) : undefined;
    const verifier = db ? await this.keys.activeKey(ROOT_SLUG, 'verifier').catch(() => undefined) : undefined;
    const signing = await this.testSignature();
    const readiness = {
      db: { ok: db, required: true },
      signing,
      issuerIdentity: { ok: issuer !== undefined, required: true },
      verifierIdentity: { ok: verifier !== undefined, required: true },
    };
    const ready = Object.values(readiness).every((part) => part.ok || !part.required);
    return { status: ready ? 'ready' : 'not_ready', readiness };
  }

  private async testSignature(): Promise<SigningReadiness> {
    this.attempts++;
    const started = performance.now();
    const ok = await succeeds(async () => {
      const key = await this.keys.activeKey(ROOT_SLUG, 'issuer');
      if (!key) throw new Error('no platform issuer key');
      const jws = await this.keys.signJwt(
        ROOT_SLUG,
        'issuer',
        { typ: 'JWT', kid: key.kid },
        { purpose: 'readiness', iat: toSeconds(this.clock.now()) },
      );
      await compactVerify(jws, await importJWK(key.publicJwk, 'ES256'), { algorithms: ['ES256'] });
    });
    if (!ok) this.failures++;
    return {
      ok,
      required: true,
      state: ok ? 'ok' : 'failed',
      latencyMs: Math.round((performance.now() - started) * 100) / 100,
      attempts: this.attempts,
      failures: this.failures,
    };
  }
}

async function succeeds(f: () => Promise<unknown>): Promise<boolean> {
  try {
    await f();
    return true;
  } catch {
    return false;
  }
}
