import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildDidDocument, platformDid, publicP256, tenantDid } from './did-web.ts';

test('did:web identifiers from PUBLIC_URL, the port percent-encoded', () => {
  assert.equal(platformDid(new URL('https://rail.example.org')), 'did:web:rail.example.org');
  assert.equal(platformDid(new URL('https://rail.example.org:8443')), 'did:web:rail.example.org%3A8443');
  assert.equal(
    platformDid(new URL('https://rail.example.org:443')),
    'did:web:rail.example.org',
    'the default port is not part of the host',
  );
  assert.equal(tenantDid(new URL('http://localhost:3000'), 'ghent'), 'did:web:localhost%3A3000:t:ghent');
});

const jwk = {
  kty: 'EC',
  crv: 'P-256',
  x: 'q3zAwR_kUwtdLEwtB2oVfucXiLHmEhu9bJUFYjJxYGs',
  y: '8h0D-ONoU-iZqrq28TyUxEULxuGwJZGMJYTMbeMshvI',
};

test('a DID document publishes only kty, crv, x and y', () => {
  const doc = buildDidDocument('did:web:h', {
    assertion: [{ kid: 'K1', publicJwk: { ...jwk, d: 'secret', kid: 'x', alg: 'ES256' } }],
    authentication: [{ kid: 'K2', publicJwk: jwk }],
  });
  assert.equal(doc.id, 'did:web:h');
  assert.deepEqual(doc.assertionMethod, ['did:web:h#K1']);
  assert.deepEqual(doc.authentication, ['did:web:h#K2']);
  assert.equal(doc.verificationMethod.length, 2);
  for (const vm of doc.verificationMethod) {
    assert.equal(vm.type, 'JsonWebKey2020');
    assert.equal(vm.controller, 'did:web:h');
    assert.deepEqual(Object.keys(vm.publicKeyJwk).sort(), ['crv', 'kty', 'x', 'y']);
  }
  assert.equal(JSON.stringify(doc).includes('secret'), false);
  assert.equal('authentication' in buildDidDocument('did:web:h', { assertion: [] }), false);
});

test('a key that is not P-256 is refused', () => {
  assert.throws(() => publicP256({ kty: 'OKP', crv: 'Ed25519', x: 'abc' }));
  assert.throws(() => publicP256({ kty: 'EC', crv: 'P-384', x: 'a', y: 'b' }));
});
