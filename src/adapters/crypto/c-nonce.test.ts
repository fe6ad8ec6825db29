import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NonceMinter } from './c-nonce.ts';
import { AesKeyVault } from './key-vault.ts';

/** A whole second, so minted expiries are exact. */
const NOW = 1_700_000_000_000;
const EXPIRY = NOW + 300_000;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

const vault = new AesKeyVault(Buffer.alloc(32, 3));
const minter = new NonceMinter(vault.deriveKey('c_nonce'));

const parts = (nonce: string) => nonce.split('.') as [string, string, string];

describe('NonceMinter: stateless c_nonces', () => {
  test('a key shorter than 32 bytes is refused', () => {
    assert.throws(() => new NonceMinter(Buffer.alloc(31, 1)), /at least 32 bytes/);
    assert.doesNotThrow(() => new NonceMinter(Buffer.alloc(32, 1)));
  });

  test('a minted nonce is <random>.<expiry>.<mac>, fresh every time', () => {
    const nonce = minter.mint('alpha', EXPIRY);
    const [random, expiry, mac] = parts(nonce);
    assert.match(random, /^[A-Za-z0-9_-]{22}$/);
    assert.equal(Number.parseInt(expiry, 36), EXPIRY / 1000);
    assert.match(mac, /^[A-Za-z0-9_-]{43}$/);
    const many = new Set(Array.from({ length: 50 }, () => minter.mint('alpha', EXPIRY)));
    assert.equal(many.size, 50, 'no two mints are alike');
  });

  test('it checks for its tenant until it expires, answering its expiry; exactly at expiry it is refused', () => {
    const nonce = minter.mint('alpha', EXPIRY);
    assert.equal(minter.check('alpha', nonce, NOW), EXPIRY);
    assert.equal(minter.check('alpha', nonce, 0), EXPIRY);
    assert.equal(minter.check('alpha', nonce, EXPIRY - 1), EXPIRY, 'the last millisecond still counts');
    assert.equal(minter.check('alpha', nonce, EXPIRY), undefined, 'refused exactly at expiry');
    assert.equal(minter.check('alpha', nonce, EXPIRY + 1), undefined);
    assert.equal(minter.check('alpha', nonce, EXPIRY + 86_400_000), undefined);
    assert.equal(minter.check('alpha', nonce, NOW), EXPIRY, 'checking spends nothing: single use is the store’s job');
  });

  test('an expiry between seconds is rounded down: a nonce never outlives what was asked', () => {
    const nonce = minter.mint('alpha', EXPIRY + 999);
    assert.equal(minter.check('alpha', nonce, NOW), EXPIRY);
    assert.equal(minter.check('alpha', nonce, EXPIRY), undefined);
    assert.equal(minter.check('alpha', minter.mint('alpha', NOW), NOW), undefined, 'minted already expired');
  });

  test('it does not check for another tenant', () => {
    const nonce = minter.mint('alpha', EXPIRY);
    for (const other of ['beta', 'Alpha', 'alph', 'alphaa', 'alpha ', '', 'alpha\u0000']) {
      assert.equal(minter.check(other, nonce, NOW), undefined, JSON.stringify(other));
    }
    const beta = minter.mint('beta', EXPIRY);
    assert.equal(minter.check('beta', beta, NOW), EXPIRY);
    assert.equal(minter.check('alpha', beta, NOW), undefined);
    // Beta's MAC on alpha's random part and expiry (or the reverse) is no use either.
    const [ra, ea, ma] = parts(nonce);
    const [rb, eb, mb] = parts(beta);
    assert.equal(minter.check('alpha', `${ra}.${ea}.${mb}`, NOW), undefined);
    assert.equal(minter.check('alpha', `${rb}.${eb}.${ma}`, NOW), undefined);
    assert.equal(minter.check('beta', `${ra}.${ea}.${mb}`, NOW), undefined);
  });

  test('a character changed anywhere in any of its three parts is refused', () => {
    const nonce = minter.mint('alpha', EXPIRY);
    const [random, expiry, mac] = parts(nonce);
    const alphabets = [BASE64URL, BASE36, BASE64URL];
    const accepted: string[] = [];
    for (const [p, part] of [random, expiry, mac].entries()) {
      for (let i = 0; i < part.length; i++) {
        for (const ch of alphabets[p] ?? '') {
          if (ch === part[i]) continue;
          const changed = [random, expiry, mac];
          changed[p] = `${part.slice(0, i)}${ch}${part.slice(i + 1)}`;
          if (minter.check('alpha', changed.join('.'), NOW) !== undefined)
            accepted.push(`part ${p}, index ${i}: ${part[i]}->${ch}`);
        }
      }
    }
    assert.deepEqual(accepted, [], 'only the minted spelling checks');
    // The expiry cannot be moved later (nor earlier) without the key.
    const later = (Number.parseInt(expiry, 36) + 3600).toString(36);
    assert.equal(minter.check('alpha', `${random}.${later}.${mac}`, NOW), undefined);
    assert.equal(minter.check('alpha', `${random}.0${expiry}.${mac}`, NOW), undefined, 'nor padded with a zero');
  });

  test('a nonce checks in exactly one spelling, since single use is recorded by the hash of the string', () => {
    // Several spellings of one nonce checking would each be spent once: one nonce, several uses.
    const accepted = new Set<string>();
    for (let round = 0; round < 20; round++) {
      const nonce = minter.mint('alpha', EXPIRY);
      const [random, expiry, mac] = parts(nonce);
      const respellings: [string, string][] = [
        ['padding appended', `${nonce}=`],
        ['double padding appended', `${nonce}==`],
        ['space appended', `${nonce} `],
        ['newline appended', `${nonce}\n`],
        ['non-alphabet character appended', `${nonce}!`],
        ['leading space', ` ${nonce}`],
        ['standard base64 alphabet in the mac', `${random}.${expiry}.${mac.replaceAll('-', '+').replaceAll('_', '/')}`],
      ];
      for (const [how, s] of respellings) {
        if (s !== nonce && minter.check('alpha', s, NOW) !== undefined) accepted.add(how);
      }
    }
    assert.deepEqual([...accepted], [], 'no other spelling of a nonce checks');
  });

  test('a nonce of another key is refused; the same master key is recognised by every instance', () => {
    const nonce = minter.mint('alpha', EXPIRY);
    assert.equal(new NonceMinter(new AesKeyVault(Buffer.alloc(32, 3)).deriveKey('c_nonce')).check('alpha', nonce, NOW), EXPIRY);
    assert.equal(
      new NonceMinter(new AesKeyVault(Buffer.alloc(32, 4)).deriveKey('c_nonce')).check('alpha', nonce, NOW),
      undefined,
    );
    assert.equal(new NonceMinter(vault.deriveKey('other purpose')).check('alpha', nonce, NOW), undefined);
    assert.equal(new NonceMinter(Buffer.alloc(32, 3)).check('alpha', nonce, NOW), undefined, 'not the master key itself');
  });

  test('a MAC longer or shorter than a MAC is refused, never thrown', () => {
    const [random, expiry, mac] = parts(minter.mint('alpha', EXPIRY));
    for (const other of [`${mac}A`, `${mac}${mac}`, mac.slice(0, 42), `${mac.slice(0, 42)}==`]) {
      assert.doesNotThrow(() => minter.check('alpha', `${random}.${expiry}.${other}`, NOW));
      assert.equal(minter.check('alpha', `${random}.${expiry}.${other}`, NOW), undefined, other);
    }
  });

  test('garbage is refused', () => {
    const nonce = minter.mint('alpha', EXPIRY);
    const [random, expiry, mac] = parts(nonce);
    for (const junk of [
      '',
      '.',
      '..',
      'a.b',
      'a.b.c',
      'a.b.c.d',
      `${nonce}.`,
      `.${nonce}`,
      `${nonce}.${mac}`,
      `${random}.${expiry}`,
      `${random}..${mac}`,
      `${random}.${expiry}.`,
      `.${expiry}.${mac}`,
      `${random}.${expiry.toUpperCase()}.${mac}`,
      `${random}.-${expiry}.${mac}`,
      `${random}.${'z'.repeat(11)}.${mac}`,
      `${random.slice(1)}.${expiry}.${mac}`,
      `${random}A.${expiry}.${mac}`,
      `${random}.${expiry}.${mac.slice(0, -1)}`,
      `${random}.${expiry}.${mac.slice(0, 22)}`,
      nonce.replaceAll('.', '~'),
    ]) {
      assert.equal(minter.check('alpha', junk, NOW), undefined, JSON.stringify(junk));
    }
  });
});
