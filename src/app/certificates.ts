import type { FastifyBaseLogger } from 'fastify';
import { openExternalCertifier, renewKeyCertificates } from '../adapters/crypto/platform-ca.ts';
import { openPlatformCertifier } from '../adapters/crypto/platform-roots.ts';
import { type Config, ConfigError } from '../config/config.ts';
import type { Clock } from '../core/clock.ts';
import type { IssuerUrls } from '../core/issuer-urls.ts';
import type { KeyBackend } from '../ports/key-backend.ts';
import {
  type CertificateAuthorityStore,
  type KeyCertificateRenewals,
  type KeyCertifier,
  ROOTS_REFRESH_MS,
  type RootReplacement,
} from '../ports/key-certifier.ts';
import type { Job } from './jobs.ts';

/**
 * The certifier for signing keys: the operator's chain (whose faults are configuration errors,
 * naming the variable) or the platform roots, which alone can be replaced.
 */
export async function certifierFor(
  config: Config,
  store: CertificateAuthorityStore,
  backend: KeyBackend,
  clock: Clock,
  urls: IssuerUrls,
): Promise<{ certifier: KeyCertifier; roots: RootReplacement | null }> {
  const options = {
    store,
    backend,
    clock,
    urls,
    publicUrl: config.publicUrl,
    platformName: config.platformName,
  };
  if (!config.certificateAuthority) {
    const platform = await openPlatformCertifier(options);
    return { certifier: platform, roots: platform };
  }
  try {
    return { certifier: await openExternalCertifier({ ...options, external: config.certificateAuthority }), roots: null };
  } catch (err) {
    throw new ConfigError('OPENRAIL_CA_CHAIN_FILE', (err as Error).message);
  }
}

export interface CertificateJobDeps {
  renewals: KeyCertificateRenewals;
  certifier: KeyCertifier;
  roots: RootReplacement | null;
  log: FastifyBaseLogger;
}

/** The kernel's certificate job (docs/haip.md, "Renewal"; docs/keys.md, "Replacing the platform root"). */
export function certificateJob({ renewals, certifier, roots, log }: CertificateJobDeps): Job {
  return {
    // Certificates renewed (every key, once a new root has taken over); then the keys of replaced
    // roots that certify no published key any more are destroyed.
    name: 'kernel.renew-key-certificates',
    everyMs: 60 * 60 * 1000,
    run: async (now) => {
      await renewKeyCertificates(renewals, certifier, now);
      const retired = (await roots?.retireReplaced((authority) => renewals.certifiedBy(authority))) ?? [];
      if (retired.length > 0) log.info({ retired }, 'the keys of replaced platform roots were destroyed');
    },
  };
}

/**
 * Every process reads the platform roots again every ROOTS_REFRESH_MS, so it learns of a root
 * another process stored well before it takes over. Answers the function that stops it.
 */
export function refreshingRoots(roots: RootReplacement | null, log: FastifyBaseLogger): () => void {
  if (!roots) return () => undefined;
  const timer = setInterval(
    () => void roots.refresh().catch((err) => log.warn({ err }, 'the platform roots could not be read again')),
    ROOTS_REFRESH_MS,
  ).unref();
  return () => clearInterval(timer);
}
