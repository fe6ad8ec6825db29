/**
 * OauthChecks remembers the wallet attestations whose signature held (docs/haip.md, "Wallet
 * attestation trust"): a remembered attestation is accepted again without its signature being
 * checked, but never after its chain stops being trusted or it expires, and a copy with one byte
 * changed is checked anew. Real attestations from the test wallet provider, a real ChainVerifier.
 */
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { calculateJwkThumbprint, HashAlgorithm, type Jwk } from '@openid4vc/oauth2';
import { newHaipWallet, newWalletProvider } from '../../../test/helpers/haip-wallet.ts';
import { NonceMinter } from '../../adapters/crypto/c-nonce.ts';
import { systemRandom } from '../../adapters/crypto/random-pool.ts';
import { ChainVerifier } from '../../adapters/crypto/x509.ts';
import { ServiceError } from '../../core/errors.ts';
import { certificatesOfPem } from '../../core/pem.ts';
import type { CertificateChains } from '../../ports/certificate-chains.ts';
import { instanceKeyThumbprint, OauthChecks } from './oauth-checks.ts';

const AUDIENCE = 'https://rail.example/t/acme';

describe('wallet attestations remembered once verified', async () => {
  const provider = await newWalletProvider();
  const wallet = await newHaipWallet(provider, 'http://127.0.0.1:9');
  const verifier = new ChainVerifier(certificatesOfPem(provider.anchorPem));
  let trusted = true;
  /** The provider's anchor, until the test withdraws it. */
  const chains: CertificateChains = {
    empty: false,
    keyOf: (chain, now) => (trusted ? verifier.keyOf(chain, now) : Promise.resolve(undefined)),
  };
  let nowMs = Date.now();
  const checks = new OauthChecks(chains, new NonceMinter(randomBytes(32)), { now: () => nowMs }, systemRandom);
  const present = async (attestation: string) =>
    checks.clientAttestation(
      {
        method: 'POST',
        url: `${AUDIENCE}/par`,
        headers: { 'oauth-client-attestation': attestation, 'oauth-client-attestation-pop': await wallet.pop(AUDIENCE) },
      },
      AUDIENCE,
      wallet.clientId,
    );
  const refused = (err: unknown) => err instanceof ServiceError && err.code === 'invalid_client';

  test('the same attestation is accepted again, and a copy with its signature changed is refused', async () => {
    const attestation = await wallet.attestation();
    assert.equal((await present(attestation)).payload.sub, wallet.clientId);
    assert.equal((await present(attestation)).payload.sub, wallet.clientId, 'accepted again (remembered)');
    const [h, p, s] = attestation.split('.') as [string, string, string];
    const flipped = `${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`;
    await assert.rejects(present(`${h}.${p}.${flipped}`), refused);
    const otherPayload = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'someone-else' }),
    ).toString('base64url');
    await assert.rejects(present(`${h}.${otherPayload}.${s}`), refused, 'the same signature over other claims');
  });

  test('a remembered attestation is refused once its expiry has passed', async () => {
    const attestation = await wallet.attestation({ payload: { exp: Math.floor(nowMs / 1000) + 60 } });
    await present(attestation);
    nowMs += 120_000;
    try {
      await assert.rejects(present(attestation), refused);
    } finally {
      nowMs = Date.now();
    }
  });

  test('a remembered attestation is refused once its chain is no longer trusted', async () => {
    const attestation = await wallet.attestation();
    await present(attestation);
    trusted = false;
    try {
      await assert.rejects(present(attestation), refused);
    } finally {
      trusted = true;
    }
    assert.equal((await present(attestation)).payload.sub, wallet.clientId, 'and accepted when trusted again');
  });
});

describe('the instance key thumbprint', () => {
  test('is the RFC 7638 thumbprint the library computes, for a P-256 key; any other key is a fault', async () => {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const library = await calculateJwkThumbprint({
      jwk: jwk as Jwk,
      hashAlgorithm: HashAlgorithm.Sha256,
      hashCallback: (data) => createHash('sha256').update(data).digest(),
    });
    assert.equal(instanceKeyThumbprint({ ...jwk, kid: 'ignored' }), library);
    const other = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' });
    assert.throws(() => instanceKeyThumbprint(other), /P-256/);
  });
});
