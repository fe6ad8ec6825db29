import assert from 'node:assert/strict';
import { createSign, generateKeyPairSync } from 'node:crypto';
import { describe, test } from 'node:test';
import type { JWK } from 'jose';
import { p256Jwk, p256Thumbprint, signEs256 } from './es256.ts';
import { isRefusal, type KeyBoundRules, verifyKeyBoundJws } from './key-bound-jws.ts';

const NOW = 1_900_000_000;
const RULES: KeyBoundRules = { typ: 'test+jwt', audience: 'https://aud.example', maxAgeS: 300, maxSkewS: 60 };
const key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = p256Jwk(key.publicKey.export({ format: 'jwk' })) as JWK;

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A JWS signed by `key` over exactly the given header and payload (signEs256 adds alg: ES256). */
function jws(header: Record<string, unknown> = {}, payload: unknown = {}): string {
  if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
    return signEs256(key.privateKey, { typ: 'test+jwt', jwk, ...header }, { aud: RULES.audience, iat: NOW, ...payload });
  }
  // A payload that is not an object: sign the raw bytes by hand.
  const signed = signEs256(key.privateKey, { typ: 'test+jwt', jwk, ...header }, {});
  const [h] = signed.split('.');
  const input = `${h}.${b64(payload)}`;
  const signature = createSign('sha256').update(input).sign({ key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

const reason = (compact: string, rules = RULES) => {
  const r = verifyKeyBoundJws(compact, rules, NOW);
  return isRefusal(r) ? r : undefined;
};

describe('the one verifier of JWSs that carry their own key', () => {
  test('accepts a good one: the public key alone, its thumbprint, the payload', () => {
    const r = verifyKeyBoundJws(jws({}, { nonce: 'n' }), RULES, NOW);
    assert.ok(!isRefusal(r));
    assert.deepEqual(r.jwk, jwk);
    assert.equal(r.thumbprint, p256Thumbprint(jwk));
    assert.equal(r.payload.nonce, 'n');
  });

  test('the header is exactly alg, typ and jwk: any other member is refused by name', () => {
    for (const member of ['kid', 'x5c', 'x5u', 'jku', 'crit', 'b64', 'foo']) {
      const value = member === 'crit' ? ['b64'] : member === 'b64' ? false : 'x';
      assert.deepEqual(reason(jws({ [member]: value })), { reason: 'header_member', member }, member);
    }
  });

  test('alg, typ and a public P-256 jwk', () => {
    const [h, p, s] = jws().split('.');
    const header = JSON.parse(Buffer.from(h ?? '', 'base64url').toString());
    assert.deepEqual(reason(`${b64({ ...header, alg: 'none' })}.${p}.`), { reason: 'alg' });
    assert.deepEqual(reason(`${b64({ ...header, alg: 'HS256' })}.${p}.${s}`), { reason: 'alg' });
    assert.deepEqual(reason(jws({ typ: 'JWT' })), { reason: 'typ' });
    assert.deepEqual(reason(jws({ jwk: undefined })), { reason: 'no_jwk' });
    for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth']) {
      assert.deepEqual(reason(jws({ jwk: { ...jwk, [member]: 'AAAA' } })), { reason: 'private_jwk' }, member);
    }
    assert.deepEqual(reason(jws({ jwk: { ...jwk, crv: 'P-384' } })), { reason: 'jwk_not_p256' });
    for (const over of [{ kty: 'RSA' }, { kty: undefined }, { x: 5 }, { y: 5 }, { x: undefined }, { y: null }]) {
      assert.deepEqual(reason(jws({ jwk: { ...jwk, ...over } })), { reason: 'jwk_not_p256' }, JSON.stringify(over));
    }
  });

  test('the signature is checked before the payload is read', () => {
    const other = p256Jwk(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }));
    assert.deepEqual(reason(jws({ jwk: other })), { reason: 'signature' });
    const [h, , s] = jws().split('.');
    assert.deepEqual(reason(`${h}.${b64('null')}.${s}`), { reason: 'signature' });
  });

  test('a payload that is not a JSON object is refused, never thrown', () => {
    for (const payload of [null, [1], 7, 'text'])
      assert.deepEqual(reason(jws({}, payload)), { reason: 'payload' }, String(payload));
  });

  test('aud: exactly the audience, as an array only where the rules allow', () => {
    assert.deepEqual(reason(jws({}, { aud: 'https://other.example' })), { reason: 'aud' });
    assert.deepEqual(reason(jws({}, { aud: [RULES.audience] })), { reason: 'aud' });
    assert.equal(reason(jws({}, { aud: [RULES.audience] }), { ...RULES, audienceAsArray: true }), undefined);
    assert.deepEqual(reason(jws({}, { aud: [RULES.audience, 'x'] }), { ...RULES, audienceAsArray: true }), { reason: 'aud' });
  });

  test('aud as a one-element array naming another audience, or an empty one, is refused', () => {
    const arrays = { ...RULES, audienceAsArray: true };
    assert.deepEqual(reason(jws({}, { aud: ['https://other-issuer.example'] }), arrays), { reason: 'aud' });
    assert.deepEqual(reason(jws({}, { aud: [] }), arrays), { reason: 'aud' });
    assert.deepEqual(reason(jws({}, { aud: ['x', RULES.audience] }), arrays), { reason: 'aud' });
    assert.deepEqual(reason(jws({}, { aud: { 0: RULES.audience, length: 1 } }), arrays), { reason: 'aud' });
    assert.deepEqual(reason(jws({}, { aud: undefined }), arrays), { reason: 'aud' });
  });

  test('iat an integer within the window; exp and nbf honoured, typed', () => {
    assert.deepEqual(reason(jws({}, { iat: undefined })), { reason: 'iat', problem: 'missing' });
    assert.deepEqual(reason(jws({}, { iat: NOW + 0.5 })), { reason: 'iat', problem: 'missing' });
    assert.deepEqual(reason(jws({}, { iat: String(NOW) })), { reason: 'iat', problem: 'missing' });
    assert.deepEqual(reason(jws({}, { iat: NOW - 301 })), { reason: 'iat', problem: 'window' });
    assert.deepEqual(reason(jws({}, { iat: NOW + 61 })), { reason: 'iat', problem: 'window' });
    assert.equal(reason(jws({}, { iat: NOW - 300 })), undefined);
    assert.equal(reason(jws({}, { iat: NOW + 60 })), undefined);
    assert.deepEqual(reason(jws({}, { exp: NOW })), { reason: 'exp' });
    assert.deepEqual(reason(jws({}, { exp: String(NOW + 60) })), { reason: 'exp' });
    assert.equal(reason(jws({}, { exp: NOW + 1 })), undefined);
    assert.deepEqual(reason(jws({}, { nbf: NOW + 61 })), { reason: 'nbf' });
    assert.deepEqual(reason(jws({}, { nbf: 'soon' })), { reason: 'nbf' });
    assert.equal(reason(jws({}, { nbf: NOW })), undefined);
    assert.equal(reason(jws({}, { nbf: NOW + 60 })), undefined, 'nbf a minute ahead: clock skew');
    assert.deepEqual(reason(jws({}, { iat: NOW - 10, nbf: NOW + 61 }), { ...RULES, maxSkewS: 300 }), { reason: 'nbf' });
  });

  test('each refusal reason is its own: a JWS failing one check only names that check', () => {
    assert.deepEqual(reason(jws({}, { iat: NOW + 60, exp: NOW + 61 })), undefined);
    assert.deepEqual(reason(jws({}, { exp: NOW - 1, nbf: NOW })), { reason: 'exp' });
  });

  test('not three parts, lenient base64url, or JSON nested too deep: malformed', () => {
    const good = jws();
    assert.deepEqual(reason('a.b'), { reason: 'malformed' });
    assert.deepEqual(reason(`${good}=`), { reason: 'malformed' });
    const [, p, s] = good.split('.');
    assert.deepEqual(reason(`${b64(`{"alg":"ES256","x":${'['.repeat(40)}${']'.repeat(40)}}`)}.${p}.${s}`), {
      reason: 'malformed',
    });
  });
});
