/**
 * The wallet's mdoc (mdoc.ts) without a service: what it checks before keeping an mdoc, one fault
 * at a time, and the DeviceResponse it answers with, read by the reference verifier over a
 * transcript computed here, the encryption key's thumbprint by jose rather than by openrail.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseDeviceResponse } from '@animo-id/mdoc';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { ChainVerifier, certifyKey, createRootCertificate, fileAuthorityKey } from '../adapters/crypto/x509.ts';
import { didDocumentFor, type KeyPair, keyPair } from '../core/conformance/builders.ts';
import { es256Sign } from '../core/mdoc/cose.ts';
import { signMdoc } from '../core/mdoc/issuer-signed.ts';
import { redirectTranscript } from '../core/mdoc/session-transcript.ts';
import { type ElementPath, verifyMdocPresentation } from '../core/mdoc/verify-mdoc.ts';
import { askedElements, checkReceivedMdoc, deviceResponseFor } from './mdoc.ts';
import { WalletError } from './net.ts';
import { createWallet, type StoredMdoc } from './wallet-file.ts';

const DAY_MS = 86_400_000;
const DOCTYPE = 'org.example.rail.acme.day-pass';
const NS = DOCTYPE;
const DID = 'did:web:rail.example.org:t:acme';
const NET = { allowHttp: false };

const newKey = (): KeyPair => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return keyPair(privateKey, publicKey.export({ format: 'jwk' }) as JWK);
};
const privateJwk = (k: KeyPair) => k.privateKey.export({ format: 'jwk' }) as JWK;

const validity = { notBefore: new Date(Date.now() - DAY_MS), notAfter: new Date(Date.now() + 365 * DAY_MS) };
const rootKey = newKey();
const root = await createRootCertificate({
  subject: { commonName: 'wallet test root' },
  key: fileAuthorityKey(privateJwk(rootKey) as never),
  validity,
});
const issuer = newKey();
const leaf = await certifyKey({
  ca: { certificate: root, key: fileAuthorityKey(privateJwk(rootKey) as never) },
  subject: { commonName: 'Acme' },
  publicJwk: issuer.publicJwk as never,
  validity,
});

const home = mkdtempSync(join(tmpdir(), 'openrail-wallet-mdoc-unit-'));
after(() => rmSync(home, { recursive: true, force: true }));
const wallet = createWallet(join(home, 'wallet.json'));

function issue(opts: { deviceKey?: JWK; signer?: KeyPair } = {}) {
  return signMdoc({
    doctype: DOCTYPE,
    nameSpaces: [
      [
        NS,
        [
          ['given_name', 'Ada'],
          ['fare_zone', 'inner'],
          ['pass_number', 'MT-1815'],
        ],
      ],
    ],
    deviceKey: opts.deviceKey ?? wallet.publicJwk,
    validity: { signed: new Date(), validFrom: new Date(Date.now() - 60_000), validUntil: new Date(Date.now() + DAY_MS) },
    status: { idx: 3, uri: 'https://rail.example.org/t/acme/status/1' },
    x5chain: [Buffer.from(leaf, 'base64')],
    random: (n) => randomBytes(n),
    sign: async (data) => es256Sign(privateJwk(opts.signer ?? issuer), data),
  });
}

/** A fetch that answers the DID document of `did` with `document`, and nothing else. */
const didServer =
  (document: unknown): typeof fetch =>
  async (input) => {
    assert.equal(String(input), 'https://rail.example.org/t/acme/did.json');
    return new Response(JSON.stringify(document), { status: 200, headers: { 'content-type': 'application/json' } });
  };

const credential = await issue();

describe('what the wallet checks before it keeps an mdoc', () => {
  const check = (mdoc: string, options: { doctype?: string; document?: unknown } = {}) =>
    checkReceivedMdoc(
      mdoc,
      wallet,
      { doctype: options.doctype ?? DOCTYPE, issuer: DID },
      didServer(options.document ?? didDocumentFor(DID, issuer)),
      NET,
    );
  const refused = async (run: Promise<unknown>, message: RegExp) => {
    await assert.rejects(run, (err: unknown) => err instanceof WalletError && message.test(err.message));
  };

  test('an mdoc of the doctype, signed by a key of the issuer, bound to this wallet, is kept', async () => {
    assert.deepEqual(await check(credential), { doctype: DOCTYPE, deviceKey: wallet.publicJwk });
  });

  test('each fault is refused by name', async () => {
    await refused(check('not*base64url'), /not base64url/);
    await refused(check(Buffer.from('hello').toString('base64url')), /not a CBOR IssuerSigned/);
    await refused(check(credential, { doctype: 'org.example.other' }), /not of the doctype the offer named/);
    await refused(check(await issue({ signer: newKey() })), /signature does not verify with its certificate's key/);
    await refused(check(credential, { document: didDocumentFor(DID, newKey()) }), /does not sign with/);
    await refused(check(await issue({ deviceKey: newKey().publicJwk })), /not bound to this wallet's key/);
    const tampered = Buffer.from(credential, 'base64url');
    const at = tampered.indexOf(Buffer.from('inner'));
    assert.ok(at > 0);
    tampered.write('outer', at);
    await refused(check(tampered.toString('base64url')), /fare_zone does not match its digest/);
  });
});

describe('the DeviceResponse the wallet answers with', () => {
  const stored: StoredMdoc = {
    id: 'c1',
    format: 'mso_mdoc',
    issuer: DID,
    doctype: DOCTYPE,
    deviceKey: wallet.publicJwk,
    collectedAt: new Date().toISOString(),
    credential,
  };
  const request = {
    client_id: 'decentralized_identifier:did:web:rail.example.org',
    nonce: 'n-0S6_WzA2Mj-0123456789',
    response_uri: 'https://rail.example.org/oid4vp/response',
  };
  const chosen: ElementPath[] = [
    [NS, 'given_name'],
    [NS, 'fare_zone'],
  ];
  const judge = (presentation: string, encryptionKeyThumbprint: string | null) =>
    verifyMdocPresentation(
      {
        presentation,
        didDocument: didDocumentFor(DID, issuer),
        trustAnchors: [root],
        expected: {
          doctype: DOCTYPE,
          claims: chosen,
          sessionTranscript: redirectTranscript({
            clientId: request.client_id,
            nonce: request.nonce,
            responseUri: request.response_uri,
            encryptionKeyThumbprint,
          }),
        },
        now: Math.floor(Date.now() / 1000),
      },
      (chain, anchors, now) => new ChainVerifier(anchors).keyOf(chain, new Date(now * 1000)),
    );

  test('discloses exactly the chosen elements, signed over the direct_post transcript', async () => {
    const presentation = await deviceResponseFor(wallet, stored, chosen, request, null);
    const [document] = parseDeviceResponse(Buffer.from(presentation, 'base64url')).documents;
    assert.deepEqual([...(document?.issuerSigned.nameSpaces.get(NS) ?? [])].map((item) => item.elementIdentifier).sort(), [
      'fare_zone',
      'given_name',
    ]);
    const result = await judge(presentation, null);
    // The status list is not given here: every link but revocation holds.
    assert.deepEqual(
      result.ledger.filter((e) => e.status !== 'passed').map((e) => e.check),
      ['revocation'],
    );
  });

  test('an answer encrypted to a key binds that key’s thumbprint into the transcript', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const encryptionKey = { ...(publicKey.export({ format: 'jwk' }) as JWK), kid: 'response-key', use: 'enc', alg: 'ECDH-ES' };
    const presentation = await deviceResponseFor(wallet, stored, chosen, request, encryptionKey);
    const holds = async (thumbprint: string | null) =>
      (await judge(presentation, thumbprint)).ledger.find((e) => e.check === 'holder_binding')?.status;
    assert.equal(await holds(await calculateJwkThumbprint(encryptionKey, 'sha256')), 'passed');
    assert.equal(await holds(null), 'failed');
  });

  test('an mdoc bound to another key, or a request without its binding, is not answered', async () => {
    const elsewhere = { ...stored, deviceKey: { ...wallet.publicJwk, x: newKey().publicJwk.x as string } };
    await assert.rejects(deviceResponseFor(wallet, elsewhere, chosen, request, null), /bound to a key this wallet does not hold/);
    const { response_uri: _r, ...partial } = request;
    await assert.rejects(deviceResponseFor(wallet, stored, chosen, partial, null), /lacks the client_id, nonce or response_uri/);
  });
});

test('elements asked are named by identifier, by namespace/identifier where two share one', () => {
  assert.deepEqual(askedElements({ 'org.a': { given_name: 'Ada', zone: 1 }, 'org.b': { zone: 2 } }), {
    asked: { given_name: 'Ada', 'org.a/zone': 1, 'org.b/zone': 2 },
    paths: { given_name: ['org.a', 'given_name'], 'org.a/zone': ['org.a', 'zone'], 'org.b/zone': ['org.b', 'zone'] },
  });
});
