/**
 * `openrail wallet` with an ISO mdoc, on both engines: a real process per command and a rail on a
 * real socket (as wallet.test.ts), a type offered in both formats. The wallet collects the SD-JWT
 * VC unless told, the mdoc with --format mso_mdoc, keeps each with its format, and answers the
 * hosted verifier's mso_mdoc request with a DeviceResponse the verifier accepts; it refuses what
 * it cannot do, saying why, and a disclosure the holder held back is missing at the verifier.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../test/helpers/databases.ts';
import { runWallet } from '../../test/helpers/process.ts';
import { postAsOwner, startRailOnSocket, type TestRail } from '../../test/helpers/rail.ts';

const SUBJECT = { given_name: 'Ada', family_name: 'Lovelace', pass_number: 'MT-1815', fare_zone: 'inner' };

for (const factory of testDatabases()) {
  describe(`openrail wallet with an ISO mdoc (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let origin: string;
    let home: string;
    let vct: string;
    let doctype: string;

    const wallet = (...args: string[]) => runWallet(home, ...args, '--allow-http');
    const api = (path: string, body: unknown, expected?: number) => postAsOwner(origin, path, body, expected);
    const offer = async (typeId = 'day-pass') =>
      String((await api('/api/offers', { tenant: 'bruges-transit', typeId, subject: SUBJECT })).offerUri);
    const open = async (extra: Record<string, unknown> = {}) => {
      const opened = await api('/verify/request', {
        vct,
        format: 'mso_mdoc',
        claims: ['given_name', 'fare_zone'],
        nonce: `n-${Math.random().toString(36).slice(2)}-0123456789`,
        aud: 'https://gate.example',
        ...extra,
      });
      return {
        requestUri: String(opened.requestUri),
        transactionId: String(opened.transactionId),
        token: String(opened.resultToken),
      };
    };
    const outcome = async (o: { transactionId: string; token: string }) => {
      const res = await fetch(`${origin}/verify/result/${o.transactionId}`, { headers: { authorization: `Bearer ${o.token}` } });
      return ((await res.json()) as { outcome: Record<string, unknown> | null }).outcome;
    };

    before(async () => {
      db = await factory.create();
      ({ rail, origin } = await startRailOnSocket(db));
      home = mkdtempSync(join(tmpdir(), 'openrail-wallet-mdoc-'));
      await api('/api/tenants', { name: 'Bruges Transit' });
      const claims = ['given_name', 'family_name', 'pass_number', 'fare_zone:enum(central|inner|outer)'];
      const type = await api('/api/types', { tenant: 'bruges-transit', name: 'Day Pass', claims, mdoc: {} });
      vct = String(type.vct);
      doctype = String((type.mdoc as { doctype: string }).doctype);
      await api('/api/types', { tenant: 'bruges-transit', name: 'Bike Pass', claims });
      assert.equal((await runWallet(home, 'init')).code, 0);
    });
    after(async () => {
      await rail?.stop();
      await db?.drop();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    test('collect takes the SD-JWT VC unless told, the mdoc with --format mso_mdoc, and keeps each with its format', async () => {
      const sdJwt = await wallet('collect', await offer());
      assert.equal(sdJwt.code, 0, sdJwt.stderr);
      assert.match(sdJwt.stdout, new RegExp(`^collected c1: ${vct}$`, 'm'));

      const mdoc = await wallet('collect', await offer(), '--format', 'mso_mdoc');
      assert.equal(mdoc.code, 0, mdoc.stderr);
      const did = `did:web:${new URL(origin).hostname}%3A${new URL(origin).port}:t:bruges-transit`;
      assert.equal(
        mdoc.stdout,
        [
          `collected c2: ${doctype} (mso_mdoc)`,
          `  issuer ${did}`,
          `  ${doctype}:`,
          ...Object.entries(SUBJECT).map(([k, v]) => `    ${k}: ${v}`),
          '',
        ].join('\n'),
      );

      const state = JSON.parse(readFileSync(join(home, 'openrail-wallet.json'), 'utf8'));
      const [first, second] = state.credentials;
      assert.equal(first.format, 'dc+sd-jwt');
      assert.deepEqual(
        { ...second, collectedAt: undefined, credential: undefined },
        {
          id: 'c2',
          format: 'mso_mdoc',
          issuer: did,
          doctype,
          deviceKey: { kty: 'EC', crv: 'P-256', x: state.key.x, y: state.key.y },
          collectedAt: undefined,
          credential: undefined,
        },
      );
      assert.match(second.credential, /^[A-Za-z0-9_-]+$/, 'the IssuerSigned, base64url');

      const listed = await wallet('list', '--json');
      assert.equal(listed.code, 0, listed.stderr);
      const json = JSON.parse(listed.stdout);
      assert.deepEqual(json.credentials[0].claims, SUBJECT);
      assert.deepEqual(json.credentials[1].namespaces, { [doctype]: SUBJECT });
      assert.equal(JSON.stringify(json).includes(second.credential), false, 'list never shows the credential itself');
      const text = await wallet('list');
      assert.match(text.stdout, new RegExp(`^c2  ${doctype.replace(/\./g, '\\.')} \\(mso_mdoc\\)$`, 'm'));
      assert.match(text.stdout, /^ {4}fare_zone: inner$/m);
    });

    test('present answers an mso_mdoc request with the mdoc: the verifier sees exactly what was disclosed', async () => {
      const o = await open();
      const run = await wallet('present', o.requestUri, '--all');
      assert.equal(run.code, 0, run.stderr);
      assert.match(
        run.stdout,
        new RegExp(`asks c2 \\(${doctype.replace(/\./g, '\\.')}, mso_mdoc\\) for: given_name, fare_zone$`, 'm'),
      );
      assert.match(run.stdout, /^disclosing given_name, fare_zone$/m);
      assert.match(run.stdout, /^the verifier accepted the presentation$/m);
      const seen = await outcome(o);
      assert.equal(seen?.ok, true, JSON.stringify(seen));
      assert.deepEqual(seen?.presentation, {
        claims: { given_name: 'Ada', fare_zone: 'inner' },
        vct,
        issuer: `did:web:${new URL(origin).hostname}%3A${new URL(origin).port}:t:bruges-transit`,
        format: 'mso_mdoc',
        doctype,
      });

      // An element held back is not in the DeviceResponse: the verifier misses it, by name.
      const partial = await open();
      const held = await wallet('present', partial.requestUri, '--claims', 'given_name');
      assert.equal(held.code, 1);
      assert.match(held.stdout, /^disclosing given_name$/m);
      assert.match(
        held.stdout,
        new RegExp(`refused the presentation: required_claim_missing: .*Not disclosed: ${doctype}/fare_zone\\.`),
      );
      assert.equal((await outcome(partial))?.error, 'required_claim_missing');
    });

    test('refusals say why: no mdoc of the doctype held, an element not asked for, a format the offer lacks', async () => {
      const other = mkdtempSync(join(tmpdir(), 'openrail-wallet-mdoc-'));
      try {
        const as = (...args: string[]) => runWallet(other, ...args, '--allow-http');
        assert.equal((await runWallet(other, 'init')).code, 0);
        assert.equal((await as('collect', await offer())).code, 0, 'the SD-JWT VC of the same type');
        const o = await open();
        const none = await as('present', o.requestUri, '--all');
        assert.equal(none.code, 1);
        assert.match(
          none.stderr,
          new RegExp(`asks for an mso_mdoc of doctype ${doctype.replace(/\./g, '\\.')}, and the wallet holds none`),
        );
        assert.equal(await outcome(o), null, 'nothing reached the verifier');

        const notAsked = await wallet('present', o.requestUri, '--claims', 'given_name,pass_number');
        assert.equal(notAsked.code, 1);
        assert.match(notAsked.stderr, /did not ask for pass_number: nothing was sent/);
        assert.equal(await outcome(o), null, 'nothing reached the verifier');

        const bike = await offer('bike-pass');
        const refused = await as('collect', bike, '--format', 'mso_mdoc');
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /the offer names no mso_mdoc credential the issuer describes: it offers dc\+sd-jwt/);
        const collected = await as('collect', bike);
        assert.equal(collected.code, 0, `the refusal left the offer collectable: ${collected.stderr}`);
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    });
  });
}
