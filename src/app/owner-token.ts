import { systemRandom } from '../adapters/crypto/random-pool.ts';
import type { Config } from '../config/config.ts';
import { hashToken, newToken } from '../core/secrets.ts';
import type { SettingsStore } from '../ports/settings-store.ts';

const OWNER_TOKEN_SETTING = 'owner_token_hash';

/**
 * The break-glass owner token (docs/authentication.md): OPENRAIL_OWNER_TOKEN when set; otherwise
 * one generated on the first start, printed once, and kept only as a hash. Concurrent first
 * starts agree on one.
 */
export function ownerTokenHash(settings: SettingsStore, config: Config): () => Promise<string | undefined> {
  if (config.ownerToken) {
    const hash = hashToken(config.ownerToken);
    return async () => hash;
  }
  return () => settings.get(OWNER_TOKEN_SETTING);
}

/** The generated token, on the one start that generated it; undefined on every other. */
export async function revealOwnerTokenOnFirstStart(settings: SettingsStore, config: Config): Promise<string | undefined> {
  if (config.ownerToken) return undefined;
  const token = newToken(systemRandom, 'oro');
  return (await settings.putIfAbsent(OWNER_TOKEN_SETTING, hashToken(token))) ? token : undefined;
}
