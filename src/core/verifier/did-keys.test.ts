/**
 * Finding the issuer's key in a supplied DID document (did-keys.ts): only a P-256 verification
 * method that `assertionMethod` references, by a `kid` that is absolute, relative (`#key`) or a
 * bare fragment; never a key listed for something else, and never a throw on a malformed document.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newP256KeyPair } from '../../adapters/crypto/p256-keys.ts';
import { assertionKey, documentId } from './did-keys.ts';

const DID = 'did:web:issuer.example';
const key = newP256KeyPair().publicJwk;
const other = newP256KeyPair().publicJwk;
const method = (id: string, publicKeyJwk: unknown = key) => ({ id, type: 'JsonWebKey2020', controller: DID, publicKeyJwk });
const doc = (over: Record<string, unknown> = {}) => ({
  id: DID,
  verificationMethod: [method(`${DID}#k1`)],
  assertionMethod: [`${DID}#k1`],
  ...over,
});
const found = (d: unknown, kid: unknown) => assertionKey(d, kid)?.jwk.x;

describe('an assertion key of a DID document', () => {
  test('by an absolute, a relative or a bare kid; its id made absolute', () => {
    for (const kid of [`${DID}#k1`, '#k1', 'k1']) assert.equal(found(doc(), kid), key.x, kid);
    assert.equal(assertionKey(doc(), '#k1')?.id, `${DID}#k1`);
  });

  test('methods and references written relative to the document', () => {
    const relative = doc({ verificationMethod: [method('#k1')], assertionMethod: ['#k1'] });
    for (const kid of [`${DID}#k1`, '#k1', 'k1']) assert.equal(found(relative, kid), key.x, kid);
    assert.equal(assertionKey(relative, 'k1')?.id, `${DID}#k1`);
  });

  test('a method embedded in assertionMethod', () => {
    const embedded = doc({ verificationMethod: [], assertionMethod: [method(`${DID}#k2`)] });
    assert.equal(found(embedded, '#k2'), key.x);
    assert.equal(found(embedded, '#k1'), undefined);
  });

  test('a DID URL kid without a fragment names a method by its whole id', () => {
    const id = `${DID}:keys:1`;
    const pathKey = doc({ verificationMethod: [method(id)], assertionMethod: [id] });
    assert.equal(found(pathKey, id), key.x);
  });

  test('a key listed but not referenced from assertionMethod is not an assertion key, even listed first', () => {
    const d = doc({
      verificationMethod: [method(`${DID}#auth`, other), method(`${DID}#k1`)],
      assertionMethod: [`${DID}#k1`],
      authentication: [`${DID}#auth`],
    });
    assert.equal(found(d, '#auth'), undefined);
    assert.equal(found(d, '#k1'), key.x);
    // A reference to a method that is not there finds nothing, and not the first method either.
    const dangling = doc({ verificationMethod: [method(`${DID}#auth`, other)], assertionMethod: [`${DID}#gone`] });
    assert.equal(found(dangling, `${DID}#auth`), undefined);
    assert.equal(found(dangling, `${DID}#gone`), undefined);
  });

  test('a method whose key is not P-256 is passed over for a later one of the same id', () => {
    const p384 = { kty: 'EC', crv: 'P-384', x: 'AAAA', y: 'AAAA' };
    const d = doc({ verificationMethod: [], assertionMethod: [method(`${DID}#k1`, p384), method(`${DID}#k1`)] });
    assert.equal(found(d, '#k1'), key.x);
    assert.equal(found(doc({ verificationMethod: [method(`${DID}#k1`, p384)] }), '#k1'), undefined);
  });

  test('no key without a document id, a string kid, or an assertionMethod array', () => {
    assert.equal(found(doc({ id: undefined }), `${DID}#k1`), undefined, 'no id');
    assert.equal(found(doc({ id: 42 }), `${DID}#k1`), undefined, 'an id that is not a string');
    assert.equal(found(doc({ id: '' }), `${DID}#k1`), undefined, 'an empty id');
    for (const kid of [undefined, 7, '', ['k1']]) assert.equal(found(doc(), kid), undefined, String(kid));
    assert.equal(found(doc({ assertionMethod: undefined }), '#k1'), undefined);
    assert.equal(found(doc({ assertionMethod: `${DID}#k1` }), '#k1'), undefined);
    for (const d of [null, 'did', [], 7]) assert.equal(found(d, '#k1'), undefined);
  });

  test('an empty kid does not name a method whose fragment is empty', () => {
    const d = doc({ verificationMethod: [method(`${DID}#`)], assertionMethod: [`${DID}#`] });
    assert.equal(found(d, ''), undefined);
  });

  test('malformed methods and references are passed over, never thrown on', () => {
    const d = doc({
      verificationMethod: [null, 'k1', { id: 42 }, method(`${DID}#k1`)],
      assertionMethod: [null, 7, { id: 42, publicKeyJwk: key }, { publicKeyJwk: key }, `${DID}#missing`, `${DID}#k1`],
    });
    assert.equal(found(d, '#k1'), key.x);
    assert.equal(found(doc({ verificationMethod: 'k1' }), '#k1'), undefined);
  });

  test('documentId is the id when it is a string', () => {
    assert.equal(documentId(doc()), DID);
    assert.equal(documentId(doc({ id: 42 })), undefined);
    assert.equal(documentId('did'), undefined);
  });
});
