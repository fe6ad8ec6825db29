/**
 * The reference wallet's state: one JSON file holding the device key and the credentials it
 * collected (docs/wallet-cli.md). The file is the holder's: it is written with mode 0600, replaced
 * whole (a new file renamed over the old one, so a crash leaves the old or the new, never half),
 * and read with bounds so a damaged or hostile file is refused rather than trusted.
 */
import { createPrivateKey, generateKeyPairSync, type JsonWebKey, type KeyObject, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isObject, p256Jwk, p256Thumbprint } from '../core/jose/es256.ts';
import { WalletError } from './net.ts';

export const WALLET_FORMAT = 'openrail-wallet/1';
export const MAX_WALLET_BYTES = 4 * 1024 * 1024;
export const MAX_CREDENTIALS = 500;
export const MAX_CREDENTIAL_CHARS = 64 * 1024;

/** The formats the wallet collects and presents (OID4VCI 1.0 Appendix A), the default first. */
export const WALLET_FORMATS = ['dc+sd-jwt', 'mso_mdoc'] as const;
export type WalletFormat = (typeof WALLET_FORMATS)[number];

/** An SD-JWT VC the wallet holds. */
export interface StoredSdJwt {
  /** The wallet's own short name for it: `c1`, `c2`, … */
  id: string;
  format: 'dc+sd-jwt';
  issuer: string;
  vct: string;
  collectedAt: string;
  /** The compact SD-JWT VC, with every disclosure. */
  credential: string;
}

/** An ISO mdoc the wallet holds (docs/wallet-cli.md). */
export interface StoredMdoc {
  id: string;
  format: 'mso_mdoc';
  /** The DID of the credential issuer, whose assertion key the x5chain certifies. */
  issuer: string;
  doctype: string;
  /**
   * The public half of the device key the mdoc is bound to (its MSO's `deviceKeyInfo`): the
   * wallet's own `key`, named here so that a presentation checks it signs with the key bound.
   */
  deviceKey: { kty: 'EC'; crv: 'P-256'; x: string; y: string };
  collectedAt: string;
  /** The base64url CBOR `IssuerSigned`, with every element. */
  credential: string;
}

export type StoredCredential = StoredSdJwt | StoredMdoc;

/** What a credential is, as the holder reads it: an SD-JWT VC's vct, an mdoc's doctype and format. */
export const credentialType = (c: StoredCredential) => (c.format === 'mso_mdoc' ? `${c.doctype} (mso_mdoc)` : c.vct);

type NewCredential = Omit<StoredSdJwt, 'id'> | Omit<StoredMdoc, 'id'>;

export interface WalletState {
  format: typeof WALLET_FORMAT;
  createdAt: string;
  /** The device key: a P-256 private JWK. */
  key: JsonWebKey;
  credentials: StoredCredential[];
}

export interface Wallet {
  path: string;
  state: WalletState;
  privateKey: KeyObject;
  /** The public half, as a JWK with kty, crv, x and y only. */
  publicJwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string };
  /** The holder account id: the RFC 7638 thumbprint of the device key. */
  accountId: string;
}

/** Where the wallet lives unless told: OPENRAIL_WALLET when set and not empty, else ./openrail-wallet.json. */
export const defaultWalletPath = (env: NodeJS.ProcessEnv = process.env) => env.OPENRAIL_WALLET || 'openrail-wallet.json';

/** A new wallet with a fresh device key; refuses to replace an existing file. */
export function createWallet(path: string, now: Date = new Date()): Wallet {
  if (exists(path)) throw new WalletError(`${path} exists already: a wallet is never overwritten.`);
  // A folder the wallet names (OPENRAIL_WALLET=data/wallet.json) is made, readable by its owner only.
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new WalletError(
      `cannot make the folder ${dirname(path)} for the wallet (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
    );
  }
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const state: WalletState = {
    format: WALLET_FORMAT,
    createdAt: now.toISOString(),
    key: privateKey.export({ format: 'jwk' }),
    credentials: [],
  };
  saveWallet(path, state);
  return openState(path, state);
}

export function loadWallet(path: string): Wallet {
  if (!exists(path)) throw new WalletError(`no wallet at ${path}: run "openrail wallet init" first.`);
  const size = statSync(path).size;
  if (size > MAX_WALLET_BYTES) throw new WalletError(`${path} is larger than a wallet can be (${MAX_WALLET_BYTES} bytes).`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new WalletError(`${path} is not a wallet file (not JSON).`);
  }
  return openState(path, checkState(parsed, path));
}

/** Writes the whole state to a new file beside `path`, flushes it, then renames it over `path`. */
export function saveWallet(path: string, state: WalletState): void {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(state, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

/** Adds a credential under the next free id and saves; answers the stored record. */
export function addCredential<T extends NewCredential>(wallet: Wallet, entry: T): T & { id: string } {
  const { credentials } = wallet.state;
  if (credentials.length >= MAX_CREDENTIALS) throw new WalletError(`the wallet holds ${MAX_CREDENTIALS} credentials, its limit.`);
  const next = 1 + Math.max(0, ...credentials.map((c) => Number(c.id.slice(1)) || 0));
  const stored = { id: `c${next}`, ...entry };
  wallet.state = { ...wallet.state, credentials: [...credentials, stored] };
  saveWallet(wallet.path, wallet.state);
  return stored;
}

function openState(path: string, state: WalletState): Wallet {
  const publicJwk = p256Jwk(state.key);
  if (!publicJwk) throw new WalletError(`${path}: the device key is not a P-256 key.`);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: state.key, format: 'jwk' });
  } catch {
    throw new WalletError(`${path}: the device key cannot be read.`);
  }
  const jwk = { kty: 'EC' as const, crv: 'P-256' as const, x: String(publicJwk.x), y: String(publicJwk.y) };
  return { path, state, privateKey, publicJwk: jwk, accountId: p256Thumbprint(jwk) };
}

function checkState(value: unknown, path: string): WalletState {
  const bad = (why: string) => new WalletError(`${path} is not a usable wallet: ${why}.`);
  if (!isObject(value) || value.format !== WALLET_FORMAT) throw bad(`its format is not ${WALLET_FORMAT}`);
  if (!isObject(value.key) || typeof value.key.d !== 'string') throw bad('it has no private device key');
  if (!Array.isArray(value.credentials) || value.credentials.length > MAX_CREDENTIALS)
    throw bad('its credential list is damaged');
  const ids = new Set<string>();
  for (const c of value.credentials) {
    const ok =
      isObject(c) &&
      typeof c.id === 'string' &&
      /^c[1-9][0-9]{0,5}$/.test(c.id) &&
      !ids.has(c.id) &&
      ((c.format === 'dc+sd-jwt' && typeof c.vct === 'string') ||
        (c.format === 'mso_mdoc' && typeof c.doctype === 'string' && samePublicKey(c.deviceKey, value.key))) &&
      typeof c.issuer === 'string' &&
      typeof c.collectedAt === 'string' &&
      typeof c.credential === 'string' &&
      c.credential.length <= MAX_CREDENTIAL_CHARS;
    if (!ok) throw bad('a stored credential is damaged');
    ids.add(c.id as string);
  }
  return value as unknown as WalletState;
}

/** Whether `a` is the public half of the P-256 key `b` (an mdoc is bound to the wallet's one device key). */
function samePublicKey(a: unknown, b: unknown): boolean {
  const [x, y] = [p256Jwk(a), p256Jwk(b)];
  return Boolean(x && y && x.x === y.x && x.y === y.y);
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
