/**
 * The verified Status List Token cache (revocation.ts): a token verified once is reused only with
 * the key that verified it, only until its ttl or exp, and every check that depends on the
 * presentation or the clock is still made each time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assertAccept,
  assertFailure,
  credential,
  ISSUER,
  inputOf,
  NOW,
  newWorld,
  presentAll,
  statusList,
} from '../../../test/helpers/verifier.ts';
import { newP256KeyPair } from '../../adapters/crypto/p256-keys.ts';
import { didDocumentFor } from '../conformance/builders.ts';
import { verifyPresentation } from './verify-presentation.ts';

describe('the verified status list cache', () => {
  it('a token verified with one key is refused when the document now names another key', () => {
    const w = newWorld();
    const presentation = presentAll(w, credential(w));
    const list = statusList(w);
    assertAccept(verifyPresentation(inputOf(w, presentation, { statusList: list })));
    // The same issuer DID, its key replaced: the cached verification must not carry over.
    const rotated = didDocumentFor(ISSUER, newP256KeyPair());
    const r = verifyPresentation(inputOf(w, presentation, { statusList: list, didDocument: rotated }));
    assert.equal(r.ledger.find((e) => e.check === 'revocation')?.failure, 'status_list_invalid');
  });

  it('a cached token is not reused past its ttl, nor past its exp', () => {
    const w = newWorld();
    const presentation = presentAll(w, credential(w));
    const list = statusList(w, { exp: NOW + 120 });
    assertAccept(verifyPresentation(inputOf(w, presentation, { statusList: list })));
    // Within the ttl (300 s) but after exp: expired, whatever was cached.
    assertFailure(verifyPresentation(inputOf(w, presentation, { statusList: list, now: NOW + 200 })), 'status_list_expired');
  });

  it('each presentation reads its own entry of a cached list, and the list must name its reference', () => {
    const w = newWorld();
    const list = statusList(w, { revoked: [w.idx] });
    const other = { ...w, idx: w.idx + 2 };
    assertAccept(verifyPresentation(inputOf(other, presentAll(other, credential(other)), { statusList: list })));
    assertFailure(verifyPresentation(inputOf(w, presentAll(w, credential(w)), { statusList: list })), 'credential_revoked');
    const elsewhere = credential(w, { status: { uri: 'https://issuer.verifier-test.example/status/2', idx: w.idx } });
    assertFailure(verifyPresentation(inputOf(w, presentAll(w, elsewhere), { statusList: list })), 'status_list_mismatch');
  });
});
