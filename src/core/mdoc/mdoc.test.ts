/**
 * The mdoc core (docs/mdoc.md): the IssuerSigned openrail signs, the session transcripts of
 * OpenID4VP 1.0 Appendix B.2.6 (checked against the specification's own examples) and the
 * reference verifier's ledger for a DeviceResponse, one broken link at a time. An independent
 * library (@auth0/mdl) reads what openrail signs.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { cborDecode, cborEncode } from '@animo-id/mdoc';
import type { JWK } from 'jose';
import { AUTH0_CORE_CHECKS, presentWithAuth0, verifyWithAuth0 } from '../../../test/helpers/auth0-mdl.ts';
import { ChainVerifier, certifyKey, createRootCertificate, fileAuthorityKey, toPem } from '../../adapters/crypto/x509.ts';
import { didDocumentFor, type KeyPair, keyPair, statusListToken } from '../conformance/builders.ts';
import { es256Sign } from './cose.ts';
import { presentMdoc } from './device-response.ts';
import { elementValue, signMdoc } from './issuer-signed.ts';
import { dcApiTranscript, redirectTranscript } from './session-transcript.ts';
import { type ElementPath, type MdocVerificationInput, verifyMdocPresentation } from './verify-mdoc.ts';

const NOW = Math.floor(Date.now() / 1000);
const DAY = 86_400;
const DOCTYPE = 'org.example.transit.pass';
const NS = 'org.example.transit.pass.1';
const DID = 'did:web:rail.example.org:t:acme';
const LIST_URI = 'https://rail.example.org/t/acme/status/1';

const newKey = (): KeyPair => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return keyPair(privateKey, publicKey.export({ format: 'jwk' }) as JWK);
};
const privateJwk = (k: KeyPair) => k.privateKey.export({ format: 'jwk' }) as JWK;

async function authority(commonName: string) {
  const key = newKey();
  const validity = { notBefore: new Date((NOW - DAY) * 1000), notAfter: new Date((NOW + 365 * DAY) * 1000) };
  const root = await createRootCertificate({
    subject: { commonName },
    key: fileAuthorityKey(privateJwk(key) as never),
    validity,
  });
  return { key, root, validity };
}

const trusted = await authority('openrail test root');
const foreign = await authority('someone else');
const issuer = newKey();
const leaf = await certifyKey({
  ca: { certificate: trusted.root, key: fileAuthorityKey(privateJwk(trusted.key) as never) },
  subject: { commonName: 'Acme Transit' },
  publicJwk: issuer.publicJwk as never,
  validity: trusted.validity,
});
const check = (chain: readonly string[], anchors: readonly string[], now: number) =>
  new ChainVerifier(anchors).keyOf(chain, new Date(now * 1000));

const subject = { given_name: 'Ada', zone: 'city', birth_date: '1990-12-01' };
const ELEMENTS: ElementPath[] = [
  [NS, 'given_name'],
  [NS, 'zone'],
  [NS, 'birth_date'],
];

async function issue(opts: {
  holder: KeyPair;
  validUntil?: number;
  doctype?: string;
  idx?: number;
  signer?: KeyPair;
  chain?: string[];
}) {
  const signer = opts.signer ?? issuer;
  return signMdoc({
    doctype: opts.doctype ?? DOCTYPE,
    nameSpaces: [
      [
        NS,
        [
          ['given_name', subject.given_name],
          ['zone', subject.zone],
          ['birth_date', elementValue('date', subject.birth_date)],
        ],
      ],
    ],
    deviceKey: opts.holder.publicJwk,
    validity: {
      signed: new Date((NOW - 60) * 1000),
      validFrom: new Date((NOW - 60) * 1000),
      validUntil: new Date((opts.validUntil ?? NOW + 30 * DAY) * 1000),
    },
    status: { idx: opts.idx ?? 7, uri: LIST_URI },
    x5chain: (opts.chain ?? [leaf]).map((c) => Buffer.from(c, 'base64')),
    random: (n) => randomBytes(n),
    sign: async (data) => es256Sign(privateJwk(signer), data),
  });
}

const transcript = redirectTranscript({
  clientId: 'decentralized_identifier:did:web:rail.example.org',
  nonce: 'n-0S6_WzA2Mj',
  responseUri: 'https://rail.example.org/oid4vp/response',
  encryptionKeyThumbprint: null,
});
const list = (revoked: number[]) =>
  statusListToken({ signer: issuer, iss: DID, sub: LIST_URI, iat: NOW - 60, exp: NOW + 3600, size: 1024, revoked });

function inputFor(presentation: string, overrides: Partial<MdocVerificationInput> = {}): MdocVerificationInput {
  return {
    presentation,
    didDocument: didDocumentFor(DID, issuer),
    statusList: list([]),
    trustAnchors: [trusted.root],
    expected: { doctype: DOCTYPE, claims: ELEMENTS.slice(0, 2), sessionTranscript: transcript },
    now: NOW,
    ...overrides,
  };
}

describe('session transcripts (OpenID4VP 1.0 Appendix B.2.6)', () => {
  // The thumbprint, client, nonce and origin of the specification's examples.
  const thumbprint = Buffer.from('4283ec927ae0f208daaa2d026a814f2b22dca52cf85ffa8f3f8626c6bd669047', 'hex').toString('base64url');
  const nonce = 'exc7gBkxjx1rdc9udRrveKvSsJIq80avlXeLHhGwqtA';
  const transcriptOf = (bytes: Uint8Array) =>
    Buffer.from(cborEncode((cborDecode(bytes) as { data: unknown }).data)).toString('hex');

  it('the redirect handover is the specification’s example, byte for byte', () => {
    const bytes = redirectTranscript({
      clientId: 'x509_san_dns:example.com',
      nonce,
      responseUri: 'https://example.com/response',
      encryptionKeyThumbprint: thumbprint,
    });
    assert.equal(
      transcriptOf(bytes),
      '83f6f682714f70656e494434565048616e646f7665725820048bc053c00442af9b8eed494cefdd9d95240d254b046b11b68013722aad38ac',
    );
  });

  it('the DC API handover is the specification’s example, byte for byte', () => {
    const bytes = dcApiTranscript({ origin: 'https://example.com', nonce, encryptionKeyThumbprint: thumbprint });
    assert.equal(
      transcriptOf(bytes),
      '83f6f682764f70656e4944345650444341504948616e646f7665725820fbece366f4212f9762c74cfdbf83b8c69e371d5d68cea09cb4c48ca6daab761a',
    );
  });
});

const holder = newKey();
const credential = await issue({ holder });
const presented = await presentMdoc({
  issuerSigned: credential,
  elements: ELEMENTS.slice(0, 2),
  deviceKey: privateJwk(holder),
  sessionTranscript: transcript,
});

describe('the mdoc ledger', () => {
  it('accepts a valid presentation, with the elements disclosed by namespace and the holder named', async () => {
    const result = await verifyMdocPresentation(inputFor(presented), check);
    assert.equal(result.verdict, 'accept', JSON.stringify(result.ledger));
    assert.deepEqual(result.claims, { [NS]: { given_name: 'Ada', zone: 'city' } });
    assert.equal(result.holder, holder.kid);
    assert.deepEqual(
      result.ledger.map((e) => e.status),
      ['passed', 'passed', 'passed', 'passed', 'passed', 'passed', 'passed', 'passed', 'passed', 'passed'],
    );
  });

  it('shows a date element as a calendar date', async () => {
    const all = await presentMdoc({
      issuerSigned: credential,
      elements: ELEMENTS,
      deviceKey: privateJwk(holder),
      sessionTranscript: transcript,
    });
    const result = await verifyMdocPresentation(
      inputFor(all, { expected: { doctype: DOCTYPE, claims: ELEMENTS, sessionTranscript: transcript } }),
      check,
    );
    assert.equal(result.verdict, 'accept');
    assert.equal(result.claims?.[NS]?.birth_date, '1990-12-01');
  });

  const refused = async (input: MdocVerificationInput, link: string, failure: string) => {
    const result = await verifyMdocPresentation(input, check);
    assert.equal(result.verdict, 'reject', JSON.stringify(result.ledger));
    assert.equal(result.failure, failure);
    assert.equal(result.ledger.find((e) => e.failure === failure)?.check, link);
    assert.equal(result.claims, null);
    assert.equal(result.holder, null);
  };

  it('refuses a tampered element (element_digest_mismatch)', async () => {
    const bytes = Buffer.from(presented, 'base64url');
    const at = bytes.indexOf(Buffer.from('Ada'));
    assert.ok(at > 0);
    bytes.write('Eve', at);
    await refused(inputFor(bytes.toString('base64url')), 'disclosures', 'element_digest_mismatch');
  });

  it('refuses another doctype (wrong_credential_type)', async () => {
    const other = await issue({ holder, doctype: 'org.example.other' });
    const p = await presentMdoc({
      issuerSigned: other,
      elements: ELEMENTS.slice(0, 2),
      deviceKey: privateJwk(holder),
      sessionTranscript: transcript,
    });
    await refused(inputFor(p), 'credential_type', 'wrong_credential_type');
  });

  it('refuses an mdoc outside its validity (credential_outside_validity)', async () => {
    await refused(inputFor(presented, { now: NOW + 31 * DAY }), 'freshness', 'credential_outside_validity');
  });

  it('refuses a revoked mdoc (credential_revoked), and reads no verdict without its list', async () => {
    await refused(inputFor(presented, { statusList: list([7]) }), 'revocation', 'credential_revoked');
    const { statusList: _, ...withheld } = inputFor(presented);
    const result = await verifyMdocPresentation(withheld, check);
    assert.equal(result.verdict, 'indeterminate');
    assert.equal(result.failure, 'status_unavailable');
  });

  it('refuses a device signature over another session transcript (device_signature_invalid)', async () => {
    for (const other of [
      redirectTranscript({
        clientId: 'decentralized_identifier:did:web:evil.example',
        nonce: 'n-0S6_WzA2Mj',
        responseUri: 'https://rail.example.org/oid4vp/response',
        encryptionKeyThumbprint: null,
      }),
      redirectTranscript({
        clientId: 'decentralized_identifier:did:web:rail.example.org',
        nonce: 'another',
        responseUri: 'https://rail.example.org/oid4vp/response',
        encryptionKeyThumbprint: null,
      }),
      dcApiTranscript({ origin: 'https://rail.example.org', nonce: 'n-0S6_WzA2Mj', encryptionKeyThumbprint: null }),
    ]) {
      const p = await presentMdoc({
        issuerSigned: credential,
        elements: ELEMENTS.slice(0, 2),
        deviceKey: privateJwk(holder),
        sessionTranscript: other,
      });
      await refused(inputFor(p), 'holder_binding', 'device_signature_invalid');
    }
    // Signed by another key than the MSO binds.
    const p = await presentMdoc({
      issuerSigned: credential,
      elements: ELEMENTS.slice(0, 2),
      deviceKey: privateJwk(newKey()),
      sessionTranscript: transcript,
    });
    await refused(inputFor(p), 'holder_binding', 'device_signature_invalid');
  });

  it('refuses a chain to an untrusted anchor, and a certified key the DID document does not assert (issuer_key_unknown)', async () => {
    await refused(inputFor(presented, { trustAnchors: [foreign.root] }), 'issuer_key', 'issuer_key_unknown');
    await refused(inputFor(presented, { didDocument: didDocumentFor(DID, newKey()) }), 'issuer_key', 'issuer_key_unknown');
  });

  it('refuses an MSO signed by another key than its certificate’s (issuer_signature_invalid)', async () => {
    const forged = await issue({ holder, signer: newKey() });
    const p = await presentMdoc({
      issuerSigned: forged,
      elements: ELEMENTS.slice(0, 2),
      deviceKey: privateJwk(holder),
      sessionTranscript: transcript,
    });
    await refused(inputFor(p), 'issuer_signature', 'issuer_signature_invalid');
  });

  it('refuses an element not disclosed (required_claim_missing)', async () => {
    const p = await presentMdoc({
      issuerSigned: credential,
      elements: ELEMENTS.slice(0, 1),
      deviceKey: privateJwk(holder),
      sessionTranscript: transcript,
    });
    await refused(inputFor(p), 'required_claims', 'required_claim_missing');
  });

  it('refuses what is not a DeviceResponse, whatever it is (malformed_presentation)', async () => {
    for (const junk of ['', 'not base64!', Buffer.from('hello').toString('base64url'), credential, 'A'.repeat(200_000)]) {
      await refused(inputFor(junk), 'structure', 'malformed_presentation');
    }
  });
});

describe('an independent library (@auth0/mdl) reads what openrail signs', () => {
  it('verifies the issuer’s signature, chain, digests, validity, and its own device signature; openrail accepts that DeviceResponse, and refuses it tampered', async () => {
    const holder = newKey();
    const credential = await issue({ holder });
    const encoded = await presentWithAuth0({
      issuerSigned: credential,
      doctype: DOCTYPE,
      namespace: NS,
      elements: ['given_name'],
      deviceKey: privateJwk(holder),
      transcript,
    });
    const { passed, failed } = await verifyWithAuth0(encoded, [toPem(trusted.root)], transcript, NS);
    assert.deepEqual(failed, []);
    for (const made of AUTH0_CORE_CHECKS) assert.ok(passed.includes(made), `@auth0/mdl checked: ${made}`);
    assert.ok(
      passed.some((c) => c.includes('given_name')),
      'the element digest was checked',
    );
    // And openrail's verifier accepts the DeviceResponse @auth0/mdl built.
    const result = await verifyMdocPresentation(
      inputFor(Buffer.from(encoded).toString('base64url'), {
        expected: { doctype: DOCTYPE, claims: [[NS, 'given_name']], sessionTranscript: transcript },
      }),
      check,
    );
    assert.equal(result.verdict, 'accept', JSON.stringify(result.ledger));
    assert.deepEqual(result.claims, { [NS]: { given_name: 'Ada' } });
    // The same DeviceResponse with the element's value changed in place: refused at its digest.
    const tampered = Buffer.from(encoded);
    const at = tampered.indexOf(Buffer.from('Ada'));
    assert.ok(at > 0, 'the element value is in the DeviceResponse');
    tampered.write('Eve', at);
    const refusedTampered = await verifyMdocPresentation(
      inputFor(tampered.toString('base64url'), {
        expected: { doctype: DOCTYPE, claims: [[NS, 'given_name']], sessionTranscript: transcript },
      }),
      check,
    );
    assert.equal(refusedTampered.verdict, 'reject');
    assert.equal(refusedTampered.failure, 'element_digest_mismatch');
  });
});
