import { accessSync, constants, statSync } from 'node:fs';
import { ConfigError, type Env, integerIn, oneOf, read } from './env.ts';

/**
 * Where the deployment keeps its private keys (docs/keys.md): `sealed` under the master key in the
 * database (the default), or `pkcs11` in a hardware token, named by the vendor's library, the
 * token's label or slot, and the user PIN (or a file holding it).
 */
export type KeysConfig =
  | { backend: 'sealed' }
  | {
      backend: 'pkcs11';
      module: string;
      token: { label: string } | { slot: number };
      pin: { value: string } | { file: string };
      sessions: number;
    };

const PKCS11_VARIABLES = [
  'OPENRAIL_PKCS11_MODULE',
  'OPENRAIL_PKCS11_TOKEN',
  'OPENRAIL_PKCS11_SLOT',
  'OPENRAIL_PKCS11_PIN',
  'OPENRAIL_PKCS11_PIN_FILE',
  'OPENRAIL_PKCS11_SESSIONS',
];

export function keysConfig(env: Env): KeysConfig {
  const backend = oneOf(env, 'OPENRAIL_KEYS', ['sealed', 'pkcs11'] as const, 'sealed');
  if (backend === 'sealed') {
    const stray = PKCS11_VARIABLES.find((name) => read(env, name) !== undefined);
    if (stray)
      throw new ConfigError(stray, 'is set, but OPENRAIL_KEYS is not pkcs11: set OPENRAIL_KEYS=pkcs11 to keep keys in the token');
    return { backend };
  }
  return {
    backend,
    module: module(env),
    token: token(env),
    pin: pin(env),
    sessions: integerIn(env, 'OPENRAIL_PKCS11_SESSIONS', 1, 64, 4),
  };
}

function module(env: Env): string {
  const file = read(env, 'OPENRAIL_PKCS11_MODULE');
  if (!file)
    throw new ConfigError('OPENRAIL_PKCS11_MODULE', 'is required with OPENRAIL_KEYS=pkcs11: the path of the PKCS#11 library');
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
    accessSync(file, constants.R_OK);
  } catch {
    throw new ConfigError('OPENRAIL_PKCS11_MODULE', `names no readable file (${file})`);
  }
  return file;
}

function token(env: Env): { label: string } | { slot: number } {
  const label = read(env, 'OPENRAIL_PKCS11_TOKEN');
  const slot = read(env, 'OPENRAIL_PKCS11_SLOT');
  if (label && slot) throw new ConfigError('OPENRAIL_PKCS11_SLOT', 'and OPENRAIL_PKCS11_TOKEN name the token twice: set one');
  if (label) {
    // PKCS#11 token labels are 32 bytes, blank-padded.
    if (Buffer.byteLength(label, 'utf8') > 32)
      throw new ConfigError('OPENRAIL_PKCS11_TOKEN', 'is longer than a token label (32 bytes)');
    return { label };
  }
  if (slot) {
    if (!/^\d{1,19}$/.test(slot)) throw new ConfigError('OPENRAIL_PKCS11_SLOT', `must be a slot number (got "${slot}")`);
    return { slot: Number(slot) };
  }
  throw new ConfigError(
    'OPENRAIL_PKCS11_TOKEN',
    'is required with OPENRAIL_KEYS=pkcs11: the token label (or OPENRAIL_PKCS11_SLOT)',
  );
}

function pin(env: Env): { value: string } | { file: string } {
  const value = read(env, 'OPENRAIL_PKCS11_PIN');
  const file = read(env, 'OPENRAIL_PKCS11_PIN_FILE');
  if (value && file) throw new ConfigError('OPENRAIL_PKCS11_PIN_FILE', 'and OPENRAIL_PKCS11_PIN both give the PIN: set one');
  if (value) {
    if (value.length > 256) throw new ConfigError('OPENRAIL_PKCS11_PIN', 'is longer than 256 characters');
    return { value };
  }
  if (file) {
    try {
      accessSync(file, constants.R_OK);
      if (statSync(file).size > 1024) throw new Error('too large');
    } catch {
      throw new ConfigError('OPENRAIL_PKCS11_PIN_FILE', `names no readable file of at most 1 KiB (${file})`);
    }
    return { file };
  }
  throw new ConfigError('OPENRAIL_PKCS11_PIN', 'is required with OPENRAIL_KEYS=pkcs11 (or OPENRAIL_PKCS11_PIN_FILE)');
}
