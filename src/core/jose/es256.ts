import { createHash, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import type { JWK } from 'jose';
import { malformation } from '../well-formed.ts';

/**
 * The JOSE this service speaks, and nothing more: compact JWS with ES256 over P-256 (RFC 7515,
 * RFC 7518 §3.4). Synchronous node:crypto, because the verifier runs two or three of these per
 * presentation and the event loop should not pay for promise machinery around each.
 */

export interface DecodedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** `<header>.<payload>` exactly as received: the bytes the signature covers. */
  signingInput: string;
  signature: Buffer;
}

const B64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Strict base64url: unpadded alphabet only, and a length no encoder produces is refused, so a
 * value has one spelling.
 */
export function decodeB64url(text: string): Buffer | undefined {
  if (!B64URL.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

/**
 * How deep a decoded JSON value may nest. JSON.parse itself copes with any depth, but every
 * recursive reader after it (JSON.stringify in a message, a walker) would overflow the stack on a
 * value nested tens of thousands deep; no JOSE header, claim set or disclosure needs more than a
 * handful of levels.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * The base64url-encoded JSON `text`, decoded; undefined when it is not, nests too deep, or holds a
 * string no store keeps (a NUL or an unpaired surrogate, core/well-formed.ts): nothing a JOSE
 * object carries needs one, and a claim is often stored or compared in the database.
 */
export function decodeJson(text: string): unknown {
  const bytes = decodeB64url(text);
  if (!bytes) return undefined;
  const json = bytes.toString('utf8');
  if (!nestsWithin(json, MAX_JSON_DEPTH)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  return malformation(value, MAX_JSON_DEPTH) === undefined ? value : undefined;
}

/** True when the JSON text opens no more than `max` arrays and objects inside one another. */
export function nestsWithin(json: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return false;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return true;
}

/**
 * A value from a presentation or request, as a message may quote it: a string JSON-escaped and
 * cut to 64 characters, a number or boolean as is, anything else by its kind only. Never the
 * whole value: it may be huge or nested deep enough to overflow JSON.stringify.
 */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The last JWS decoded, by their text: one request's checks read the same proof or credential
 * several times (a DPoP proof's nonce, its iat, then its signature; a presentation's issuer JWT for
 * its key, its certificate, its status and its claims). Decoding is a function of the text alone,
 * so a remembered answer is never stale. At most DECODED_LIMIT texts of at most
 * DECODED_MAX_CHARS each (512 KiB in all), the oldest forgotten first; the header and payload
 * answered are frozen, nested objects included, so no reader can change what another reads.
 */
export const DECODED_LIMIT = 16;
export const DECODED_MAX_CHARS = 32 * 1024;
const decoded = new Map<string, DecodedJws | undefined>();

/**
 * Splits and decodes a compact JWS; undefined when it is not one. Verifies nothing. A header
 * with `crit` is refused: this service understands no JWS extension (RFC 7515 §4.1.11).
 */
export function decodeJws(compact: string): DecodedJws | undefined {
  if (compact.length > DECODED_MAX_CHARS) return decodeJwsText(compact);
  if (decoded.has(compact)) return decoded.get(compact);
  const answer = decodeJwsText(compact);
  if (answer) {
    deepFreeze(answer.header);
    deepFreeze(answer.payload);
    Object.freeze(answer);
  }
  if (decoded.size >= DECODED_LIMIT) decoded.delete(decoded.keys().next().value as string);
  decoded.set(compact, answer);
  return answer;
}

function decodeJwsText(compact: string): DecodedJws | undefined {
  const parts = compact.split('.');
  if (parts.length !== 3) return undefined;
  const [h, p, s] = parts as [string, string, string];
  const header = decodeJson(h);
  const payload = decodeJson(p);
  const signature = decodeB64url(s);
  if (!isObject(header) || !isObject(payload) || !signature || 'crit' in header) return undefined;
  return { header, payload, signingInput: `${h}.${p}`, signature };
}

/** Freezes a decoded JSON value and everything in it (at most MAX_JSON_DEPTH levels: decodeJson saw to that). */
function deepFreeze(value: object): void {
  const stack: object[] = [value];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    Object.freeze(next);
    for (const child of Object.values(next)) if (typeof child === 'object' && child !== null) stack.push(child);
  }
}

/** A P-256 public JWK, or undefined: kty, crv, x and y are all that is read. */
export function p256Jwk(value: unknown): JWK | undefined {
  if (!isObject(value)) return undefined;
  const { kty, crv, x, y } = value;
  if (kty !== 'EC' || crv !== 'P-256' || typeof x !== 'string' || typeof y !== 'string') return undefined;
  return { kty, crv, x, y };
}

const KEY_CACHE_LIMIT = 1024;
const keyCache = new Map<string, KeyObject | null>();

/** The KeyObject of a P-256 JWK (null when the point is not on the curve); recently used keys are kept. */
function publicKeyOf(jwk: JWK): KeyObject | null {
  const id = `${jwk.x}.${jwk.y}`;
  let key = keyCache.get(id);
  if (key !== undefined) return key;
  try {
    key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, format: 'jwk' });
  } catch {
    key = null;
  }
  if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.clear();
  keyCache.set(id, key);
  return key;
}

/** True when `jws` carries a valid ES256 signature by `jwk`. The caller checks `alg` first. */
export function verifyEs256(jws: Pick<DecodedJws, 'signingInput' | 'signature'>, jwk: JWK): boolean {
  return verifyEs256Bytes(Buffer.from(jws.signingInput, 'ascii'), jws.signature, jwk);
}

/** True when `signature` (r‖s) is an ES256 signature of `data` by `jwk` (a COSE structure's, say). */
export function verifyEs256Bytes(data: Uint8Array, signature: Uint8Array, jwk: JWK): boolean {
  const key = publicKeyOf(jwk);
  if (!key || signature.length !== 64) return false;
  return verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature);
}

const b64json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** What an ES256 JWS's signature covers: the encoded header (with `alg`) and payload. */
const signingInputOf = (header: Record<string, unknown>, payload: Record<string, unknown>) =>
  `${b64json({ ...header, alg: 'ES256' })}.${b64json(payload)}`;

/** A compact ES256 JWS; `alg` is set here, everything else in the header is the caller's. */
export function signEs256(key: KeyObject, header: Record<string, unknown>, payload: Record<string, unknown>): string {
  const input = signingInputOf(header, payload);
  const signature = sign('sha256', Buffer.from(input, 'ascii'), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/**
 * The same JWS signed by a key held elsewhere (a key backend, ports/key-backend.ts): `signature`
 * answers the ES256 signature, r||s, of the bytes it is given.
 */
export async function signEs256With(
  signature: (input: Uint8Array) => Promise<Uint8Array>,
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
): Promise<string> {
  const input = signingInputOf(header, payload);
  const signed = Buffer.from(await signature(Buffer.from(input, 'ascii')));
  if (signed.length !== 64) throw new Error(`an ES256 signature is 64 bytes, not ${signed.length}`);
  return `${input}.${signed.toString('base64url')}`;
}

/** RFC 7638 SHA-256 thumbprint of a P-256 key: the required members in lexicographic order. */
export function p256Thumbprint(jwk: JWK): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical, 'utf8').digest('base64url');
}
