import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.ts';

export const MASTER_KEY_FILE = 'master.key';

/**
 * OPENRAIL_MASTER_KEY wraps every private key at rest. Outside production, when it is unset,
 * one is generated once into the data folder (mode 0600) and reused on later starts.
 */
export function resolveMasterKey(config: Config, warn: (msg: string) => void): Buffer {
  if (config.masterKey) return config.masterKey;
  const file = join(config.dataDir, MASTER_KEY_FILE);
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64url key`);
    return key;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  warn(
    `OPENRAIL_MASTER_KEY is not set: generated one into ${file}. Set OPENRAIL_MASTER_KEY for any shared or production deployment.`,
  );
  return key;
}
