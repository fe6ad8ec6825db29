/**
 * Hosted verification of ISO mdoc (docs/mdoc.md, "Hosted verification"), on both engines, with the
 * oid4vc-ts wallet resolving each request (test/helpers/oid4vp-wallet.ts) and answering with a
 * DeviceResponse (test/helpers/mdoc-wallet.ts): the QR request under the interface's profile
 * (direct_post) and under HAIP (direct_post.jwt), and the Digital Credentials API; the refusals
 * name their link and change nothing but the transaction's outcome.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { parseIssuerSigned } from '@animo-id/mdoc';
import { decodeJwt } from 'jose';
import { testDatabases } from '../../../test/helpers/databases.ts';
import { newDeviceKey } from '../../../test/helpers/mdoc-wallet.ts';
import { answerDcApi, presentWithWallet, type WalletOverrides } from '../../../test/helpers/oid4vp-wallet.ts';
import { owner } from '../../../test/helpers/rail.ts';
import { startVerifierRail, type VerifierRail } from '../../../test/helpers/verifier-rail.ts';

const SHOP = 'https://shop.example';
const ASKED = ['holder_name', 'class'];

interface Opened {
  requestUri: string;
  transactionId: string;
  resultToken: string;
  dcApi?: { requests: Array<{ protocol: string; data: Record<string, unknown> }> };
}

for (const factory of testDatabases()) {
  describe(`hosted verification of mdoc (${factory.name})`, () => {
    let v: VerifierRail;
    let doctype: string;
    let namespace: string;

    const open = async (extra: Record<string, unknown> = {}): Promise<Opened> => {
      const nonce = randomBytes(24).toString('base64url');
      const res = await v.call('POST', '/verify/request', {
        vct: v.vct,
        format: 'mso_mdoc',
        claims: ASKED,
        nonce,
        aud: SHOP,
        ...extra,
      });
      assert.equal(res.status, 201, res.text);
      return res.json as unknown as Opened;
    };
    const present = (o: Opened, overrides?: WalletOverrides) =>
      presentWithWallet({
        requestUri: o.requestUri,
        credential: v.holding.credential,
        holderKey: v.holding.key,
        baseUrl: v.origin,
        ...(overrides ? { overrides } : {}),
      });

    before(async () => {
      v = await startVerifierRail(factory, { tenant: 'Antwerp Libraries', type: 'Library Card', mdoc: true });
      const catalog = await v.call('GET', '/verify/catalog');
      const entry = (catalog.json.types as Array<Record<string, unknown>>).find((t) => t.vct === v.vct);
      assert.ok(entry);
      assert.deepEqual(entry.formats, ['dc+sd-jwt', 'mso_mdoc'], 'the catalog lists the formats of a type offered as mdoc');
      doctype = String(entry.doctype);
      namespace = doctype;
    });
    after(async () => {
      await v?.stop();
    });

    test('the request object asks for the mdoc by doctype, each claim by [namespace, element] with intent_to_retain', async () => {
      const o = await open();
      const res = await v.call('GET', `/oid4vp/request/${o.transactionId}`);
      assert.equal(res.status, 200);
      const request = decodeJwt(res.text) as Record<string, unknown> & {
        dcql_query: { credentials: Array<Record<string, unknown>> };
      };
      assert.deepEqual(request.dcql_query.credentials, [
        {
          id: 'credential',
          format: 'mso_mdoc',
          meta: { doctype_value: doctype },
          claims: ASKED.map((c) => ({ path: [namespace, c], intent_to_retain: false })),
        },
      ]);
      const formats = (request.client_metadata as { vp_formats_supported: Record<string, unknown> }).vp_formats_supported;
      assert.deepEqual(formats.mso_mdoc, { issuerauth_alg_values: [-7], deviceauth_alg_values: [-7] });
    });

    for (const profile of ['openid4vp', 'haip'] as const) {
      test(`a wallet answers by QR (${profile}): the outcome names the claims by the type's keys`, async () => {
        const o = await open({ profile });
        const run = await present(o);
        assert.equal(run.status, 200, JSON.stringify(run.body));
        assert.equal(run.request.response_mode, profile === 'haip' ? 'direct_post.jwt' : 'direct_post');
        const outcome = await v.poll(o);
        assert.deepEqual(outcome, {
          ok: true,
          presentation: {
            claims: { holder_name: 'Ada Lovelace', class: 'first' },
            vct: v.vct,
            issuer: 'did:web:rail.example.test:t:antwerp-libraries',
            format: 'mso_mdoc',
            doctype,
          },
          presentedNonce: (outcome as { presentedNonce: string }).presentedNonce,
          presentedAud: SHOP,
        });
      });
    }

    test('a wallet answers through the Digital Credentials API: the transcript binds the page’s origin', async () => {
      for (const protocol of ['openid4vp-v1-signed', 'openid4vp-v1-unsigned']) {
        const o = await open({ origin: SHOP });
        const request = o.dcApi?.requests.find((r) => r.protocol === protocol);
        assert.ok(request, protocol);
        const answer = await answerDcApi({
          request,
          origin: SHOP,
          credential: v.holding.credential,
          holderKey: v.holding.key,
          baseUrl: v.origin,
        });
        const relayed = await v.call(
          'POST',
          `/verify/response/${o.transactionId}`,
          { protocol: answer.protocol, data: answer.data },
          { authorization: `Bearer ${o.resultToken}` },
        );
        assert.equal(relayed.status, 200, relayed.text);
        assert.equal((relayed.json.outcome as { ok: boolean }).ok, true, `${protocol}: ${relayed.text}`);
      }
      // Another origin signed into the transcript: the device signature does not hold.
      const other = await open({ origin: SHOP });
      const otherRequest = other.dcApi?.requests.find((r) => r.protocol === 'openid4vp-v1-signed');
      assert.ok(otherRequest);
      const bent = await answerDcApi({
        request: otherRequest,
        origin: SHOP,
        credential: v.holding.credential,
        holderKey: v.holding.key,
        baseUrl: v.origin,
        overrides: { aud: 'https://evil.example' },
      });
      const refused = await v.call(
        'POST',
        `/verify/response/${other.transactionId}`,
        { protocol: bent.protocol, data: bent.data },
        {
          authorization: `Bearer ${other.resultToken}`,
        },
      );
      assert.equal((refused.json.outcome as { error: string }).error, 'device_signature_invalid', refused.text);
    });

    test('a device signature over another transcript or by another key is refused at holder_binding', async () => {
      for (const overrides of [
        { nonce: 'another-nonce-0123456789' },
        { aud: 'decentralized_identifier:did:web:evil.example' },
        { kbKey: await newDeviceKey() },
      ]) {
        const o = await open();
        const run = await present(o, overrides);
        assert.equal(run.status, 400, JSON.stringify(run.body));
        const outcome = await v.poll(o);
        assert.equal(outcome?.ok, false);
        assert.equal(outcome?.error, 'device_signature_invalid');
        assert.equal(outcome?.link, 'holder_binding');
      }
    });

    test('an SD-JWT VC handed to an mdoc request is malformed for it', async () => {
      const o = await open();
      const res = await v.postResponse({
        state: await stateOf(o),
        vp_token: JSON.stringify({ credential: ['eyJhbGciOiJFUzI1NiJ9.e30.c2ln~'] }),
      });
      assert.equal(res.status, 400);
      assert.equal((await v.poll(o))?.error, 'malformed_presentation');
    });

    test('asking for mso_mdoc where it is not offered is unsupported_format, and opens nothing', async () => {
      const sdOnly = await v.call(
        'POST',
        '/api/types',
        { tenant: 'antwerp-libraries', name: 'Reading Room', claims: ['holder_name'] },
        owner,
      );
      assert.equal(sdOnly.status, 201, sdOnly.text);
      const nonce = randomBytes(24).toString('base64url');
      for (const body of [
        { vct: sdOnly.json.vct, format: 'mso_mdoc', claims: ['holder_name'], nonce, aud: SHOP },
        { vct: v.vct, issuer: 'did:web:issuer.example', format: 'mso_mdoc', claims: ['holder_name'], nonce, aud: SHOP },
      ]) {
        const res = await v.call('POST', '/verify/request', body);
        assert.equal(res.status, 400, res.text);
        assert.equal(res.json.error, 'unsupported_format');
      }
      // The nonce is free: nothing was stored.
      const fine = await v.call('POST', '/verify/request', {
        vct: v.vct,
        format: 'mso_mdoc',
        claims: ['holder_name'],
        nonce,
        aud: SHOP,
      });
      assert.equal(fine.status, 201, fine.text);
    });

    test('a revoked mdoc fails at revocation', async () => {
      const { credential } = v.holding;
      const status = statusOf(credential);
      const revoked = await v.call('POST', '/api/revoke', { tenant: 'antwerp-libraries', status }, owner);
      assert.equal(revoked.status, 200, revoked.text);
      const o = await open();
      const run = await present(o);
      assert.equal(run.status, 400);
      const outcome = await v.poll(o);
      assert.equal(outcome?.error, 'credential_revoked');
      assert.equal(outcome?.link, 'revocation');
    });

    /** The state of a transaction's request object, as a wallet reads it. */
    async function stateOf(o: Opened): Promise<string> {
      const res = await v.call('GET', `/oid4vp/request/${o.transactionId}`);
      return String(decodeJwt(res.text).state);
    }
  });
}

/** The status list entry an mdoc's MSO names. */
function statusOf(issuerSigned: string): { idx: number; uri: string } {
  const mso = parseIssuerSigned(Buffer.from(issuerSigned, 'base64url')).issuerSigned.issuerAuth.decodedPayload as unknown as {
    status: Map<string, Map<string, unknown>>;
  };
  const ref = mso.status.get('status_list') as Map<string, unknown>;
  return { idx: Number(ref.get('idx')), uri: String(ref.get('uri')) };
}
