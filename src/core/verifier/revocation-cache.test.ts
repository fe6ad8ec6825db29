/**
 * The verified Status List Token cache (revocation.ts): a token verified once is reused only with
 * the key that verified it, only until its ttl or exp, and every check that depends on the
 * presentation or the clock is still made each time.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import {
  assertAccept,
  assertFailure,
  credential,
  handStatusList,
  ISSUER,
  inputOf,
  NOW,
  newWorld,
  presentAll,
  statusList,
  verifyIn,
  type World,
} from '../../../test/helpers/verifier.ts';
import { newP256KeyPair } from '../../adapters/crypto/p256-keys.ts';
import { didDocumentFor } from '../conformance/builders.ts';
import { publicP256 } from '../did-web.ts';
import { clearStatusListCache, statusListCacheStats } from './revocation.ts';
import { verifyPresentation } from './verify-presentation.ts';

const verify = verifyIn;
/** A sound presentation whose key binding is fresh at `now`. */
const at = (w: World, now: number) => presentAll(w, credential(w), { iat: now - 5 });

beforeEach(() => clearStatusListCache());

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

describe('the status list cache: keys, lifetimes and bounds', () => {
  it('a token cached under one key is refused when the document keeps the kid but holds another key', () => {
    const w = newWorld();
    const presentation = presentAll(w, credential(w));
    const list = statusList(w);
    assertAccept(verify(w, presentation, { statusList: list }));
    assert.equal(statusListCacheStats().entries, 1, 'the verified list is cached');
    // The same verification method id (the issuer's kid), another public key behind it.
    const impostor = newP256KeyPair();
    const swapped = structuredClone(w.didDocument);
    const method = swapped.verificationMethod?.[0];
    assert.ok(method);
    method.publicKeyJwk = { ...publicP256(impostor.publicJwk), kid: w.issuer.kid };
    const r = verify(w, presentation, { statusList: list, didDocument: swapped });
    assert.equal(r.ledger.find((e) => e.check === 'revocation')?.failure, 'status_list_invalid');
    assert.equal(r.verdict, 'reject');
  });

  it('a token verified again with the same key is answered from the cache', () => {
    const w = newWorld();
    const presentation = presentAll(w, credential(w));
    const list = statusList(w);
    assertAccept(verify(w, presentation, { statusList: list }));
    assertAccept(verify(w, presentation, { statusList: list }));
    assert.deepEqual(statusListCacheStats().hits, 1);
  });

  it('is kept for the ttl, not beyond it, and never beyond exp', () => {
    const w = newWorld();
    const presentation = presentAll(w, credential(w));
    const list = handStatusList(w, { payload: { ttl: 300, exp: NOW + 3600 } });
    assertAccept(verify(w, presentation, { statusList: list }));
    assertAccept(verify(w, at(w, NOW + 299), { statusList: list, now: NOW + 299 }));
    assert.equal(statusListCacheStats().hits, 1, 'a hit within the ttl');
    assertAccept(verify(w, at(w, NOW + 300), { statusList: list, now: NOW + 300 }));
    assert.equal(statusListCacheStats().hits, 1, 'no hit once the ttl has run out');

    clearStatusListCache();
    const short = handStatusList(w, { payload: { ttl: 300, exp: NOW + 100 } });
    assertAccept(verify(w, presentation, { statusList: short }));
    assertAccept(verify(w, at(w, NOW + 100), { statusList: short, now: NOW + 100 }));
    assert.equal(statusListCacheStats().hits, 0, 'no hit at exp, though within the ttl');
  });

  it('keeps a list without ttl no longer than the moment it was verified', () => {
    const w = newWorld();
    const presentation = presentAll(w, credential(w));
    const list = handStatusList(w, { payload: { ttl: undefined } });
    assertAccept(verify(w, presentation, { statusList: list }));
    assert.equal(statusListCacheStats().entries, 0);
  });

  it('keeps a list an hour at most, whatever its ttl', () => {
    const w = newWorld();
    const list = handStatusList(w, { payload: { ttl: 86_400, exp: NOW + 86_400 } });
    assertAccept(verify(w, at(w, NOW), { statusList: list }));
    assertAccept(verify(w, at(w, NOW + 3599), { statusList: list, now: NOW + 3599 }));
    assert.equal(statusListCacheStats().hits, 1);
    assertAccept(verify(w, at(w, NOW + 3600), { statusList: list, now: NOW + 3600 }));
    assert.equal(statusListCacheStats().hits, 1, 'not a hit an hour later');
  });

  it('a ttl that is not a number keeps nothing; a list without exp is kept for its ttl', () => {
    const w = newWorld();
    const presentation = presentAll(w, credential(w));
    assertAccept(verify(w, presentation, { statusList: handStatusList(w, { payload: { ttl: '300' } }) }));
    assert.equal(statusListCacheStats().entries, 0);
    assertAccept(verify(w, presentation, { statusList: handStatusList(w, { payload: { exp: undefined } }) }));
    assert.equal(statusListCacheStats().entries, 1);
  });

  it('counts what it holds exactly: a token and its inflated list, once, whatever it evicts or replaces', () => {
    const w = newWorld();
    const presentation = presentAll(w, credential(w));
    // Lists of one length (iat of ten digits each), each 128 bytes inflated (1,024 one-bit entries).
    const lists = Array.from({ length: 3 }, (_, i) => statusList(w, { iat: NOW - 60 - i }));
    const size = (lists[0] as string).length + 128;
    assert.ok(lists.every((l) => l.length === (lists[0] as string).length));
    clearStatusListCache({ entries: 8, bytes: 2 * size });
    for (const list of lists.slice(0, 2)) assertAccept(verify(w, presentation, { statusList: list }));
    assert.deepEqual([statusListCacheStats().entries, statusListCacheStats().bytes], [2, 2 * size], 'two exactly fill it');
    assertAccept(verify(w, presentation, { statusList: lists[2] }));
    assert.deepEqual([statusListCacheStats().entries, statusListCacheStats().bytes], [2, 2 * size], 'a third evicts one');
    // Past its ttl the same token is verified again and replaces its own entry.
    const later = NOW + 400;
    assertAccept(verify(w, at(w, later), { statusList: lists[2], now: later }));
    assert.deepEqual([statusListCacheStats().entries, statusListCacheStats().bytes], [2, 2 * size], 'replaced, not added');
    // A list whose entries do not inflate is kept too, at the size of its token.
    clearStatusListCache({ entries: 8, bytes: 1024 * 1024 });
    const broken = handStatusList(w, { lst: 'not-zlib' });
    verify(w, presentation, { statusList: broken });
    verify(w, at(w, later), { statusList: broken, now: later });
    assert.deepEqual([statusListCacheStats().entries, statusListCacheStats().bytes], [1, broken.length]);
    // A token exactly the size of the cache is kept; one byte larger is not.
    clearStatusListCache({ entries: 8, bytes: size });
    assertAccept(verify(w, presentation, { statusList: lists[0] }));
    assert.equal(statusListCacheStats().entries, 1);
    clearStatusListCache({ entries: 8, bytes: size - 1 });
    assertAccept(verify(w, presentation, { statusList: lists[0] }));
    assert.equal(statusListCacheStats().entries, 0);
  });

  it('is bounded at 64 lists and 64 MiB', () => {
    assert.deepEqual(statusListCacheStats().limits, { entries: 64, bytes: 64 * 1024 * 1024 });
  });

  it('is bounded in entries and in bytes, dropping the oldest first', () => {
    const w = newWorld();
    const presentation = presentAll(w, credential(w));
    clearStatusListCache({ entries: 8, bytes: 1024 * 1024 });
    const lists = Array.from({ length: 10 }, (_, i) => statusList(w, { iat: NOW - 60 - i }));
    for (const list of lists) assertAccept(verify(w, presentation, { statusList: list }));
    assert.equal(statusListCacheStats().entries, 8);
    // The newest is still there, the first was dropped.
    verify(w, presentation, { statusList: lists[9] });
    assert.equal(statusListCacheStats().hits, 1);
    verify(w, presentation, { statusList: lists[0] });
    assert.equal(statusListCacheStats().hits, 1);

    // Lists of 256 KiB each: no more than the 1 MiB allowed are kept together.
    clearStatusListCache({ entries: 8, bytes: 1024 * 1024 });
    const big = Array.from({ length: 5 }, (_, i) =>
      handStatusList(w, { lst: deflateSync(new Uint8Array(256 * 1024)).toString('base64url'), payload: { iat: NOW - 60 - i } }),
    );
    for (const list of big) assertAccept(verify(w, presentation, { statusList: list }));
    const stats = statusListCacheStats();
    assert.ok(stats.bytes <= 1024 * 1024, `${stats.bytes} bytes cached`);
    assert.equal(stats.entries, 3);

    // One token larger than the whole cache is verified and not kept, and evicts nothing.
    const huge = handStatusList(w, { payload: { padding: 'x'.repeat(1024 * 1024) } });
    assertAccept(verify(w, presentation, { statusList: huge }));
    assert.deepEqual(statusListCacheStats(), stats);
  });
});
