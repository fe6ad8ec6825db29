/**
 * `openrail wallet` as a holder runs it: a real process per command, a wallet file in a folder of
 * its own, and a rail on a real socket whose PUBLIC_URL is that socket's http://127.0.0.1 origin
 * (so the wallet needs --allow-http, as it would against `npm start`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runWallet } from '../../test/helpers/process.ts';
import { postAsOwner, sqliteRailOnSocket } from '../../test/helpers/rail.ts';
import { p256Thumbprint } from '../core/jose/es256.ts';
import { printable } from './wallet.ts';

const SUBJECT = { holder_name: 'Ada Lovelace', member_number: 'L-1815', adult: true };

describe('openrail wallet against a running rail', () => {
  const site = sqliteRailOnSocket();
  let home: string;
  let vct: string;

  const wallet = (...args: string[]) => runWallet(home, ...args);

  const api = (path: string, body: unknown, expected?: number) => postAsOwner(site.origin, path, body, expected);

  const offer = (extra: Record<string, unknown> = {}) =>
    api('/api/offers', { tenant: 'ghent-library', typeId: 'library-card', subject: SUBJECT, ...extra });

  async function openVerification(claims: string[]) {
    const opened = await api('/verify/request', {
      vct,
      claims,
      nonce: `n-${Math.random().toString(36).slice(2)}-0123456789`,
      aud: 'https://rp.example',
    });
    return {
      requestUri: String(opened.requestUri),
      transactionId: String(opened.transactionId),
      resultToken: String(opened.resultToken),
    };
  }

  async function outcome(transactionId: string, resultToken: string) {
    const res = await fetch(`${site.origin}/verify/result/${transactionId}`, {
      headers: { authorization: `Bearer ${resultToken}` },
    });
    return ((await res.json()) as { outcome: Record<string, unknown> | null }).outcome;
  }

  before(async () => {
    home = mkdtempSync(join(tmpdir(), 'openrail-wallet-'));
    await api('/api/tenants', { name: 'Ghent Library' });
    const type = await api('/api/types', {
      tenant: 'ghent-library',
      name: 'Library Card',
      claims: ['holder_name', 'member_number', 'adult:bool'],
    });
    vct = String(type.vct);
  });

  after(async () => {
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test('init makes a private wallet file whose account is the thumbprint of its key, and never overwrites it', async () => {
    const made = await wallet('init');
    assert.equal(made.code, 0, made.stderr);
    const file = join(home, 'openrail-wallet.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const state = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(state.format, 'openrail-wallet/1');
    assert.match(made.stdout, new RegExp(`^account ${p256Thumbprint(state.key)}$`, 'm'));
    assert.ok(!made.stdout.includes(state.key.d), 'the private key is never printed');

    const again = await wallet('init');
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists already/);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), state, 'the wallet is untouched');
  });

  test('init makes the folder a wallet path names, private to its owner; a path through a file is refused by name', async () => {
    const made = await wallet('init', '--wallet', 'data/nested/holder.json');
    assert.equal(made.code, 0, made.stderr);
    assert.equal(statSync(join(home, 'data')).mode & 0o777, 0o700);
    assert.equal(statSync(join(home, 'data', 'nested')).mode & 0o777, 0o700);
    assert.equal(statSync(join(home, 'data', 'nested', 'holder.json')).mode & 0o777, 0o600);
    const through = await wallet('init', '--wallet', 'openrail-wallet.json/holder.json');
    assert.equal(through.code, 1);
    assert.match(through.stderr, /cannot make the folder openrail-wallet\.json for the wallet/);
  });

  test('collect refuses plain http without --allow-http, and the offer stays collectable', async () => {
    const { offerUri } = await offer();
    const refused = await wallet('collect', String(offerUri));
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /plain http: add --allow-http/);
    const collected = await wallet('collect', String(offerUri), '--allow-http');
    assert.equal(collected.code, 0, collected.stderr);
    assert.match(collected.stdout, new RegExp(`^collected c1: ${vct}$`, 'm'));
    assert.match(collected.stdout, /^ {2}holder_name: Ada Lovelace$/m);
    assert.match(collected.stdout, /^ {2}issuer did:web:127\.0\.0\.1%3A\d+:t:ghent-library$/m);
  });

  test('collect names the part of an offer it could not read, and never quotes the offer', async () => {
    const { offerUri } = await offer();
    const uri = String(offerUri);
    const encoded = (json: unknown) => `openid-credential-offer://?credential_offer=${encodeURIComponent(JSON.stringify(json))}`;
    const cut = uri.slice(0, uri.length - 20);
    const cases: Array<[string, RegExp]> = [
      ['an offer', /the offer is not a URI/],
      ['openid-credential-offer://?foo=1', /carries neither credential_offer nor credential_offer_uri/],
      [cut, /credential_offer is not JSON \(.*\): was the link cut short\?/],
      [encoded({ credential_configuration_ids: ['x'], grants: {} }), /credential_offer has no credential_issuer/],
      [encoded({ credential_issuer: site.origin, grants: {} }), /credential_offer has no credential_configuration_ids/],
      [encoded({ credential_issuer: site.origin, credential_configuration_ids: ['x'] }), /credential_offer has no grants/],
      [
        encoded({ credential_issuer: 'not a url', credential_configuration_ids: ['x'], grants: {} }),
        /names an issuer that is not a URL/,
      ],
    ];
    for (const [given, message] of cases) {
      const run = await wallet('collect', given, '--allow-http');
      assert.equal(run.code, 1, given);
      assert.match(run.stderr, message, given);
      assert.ok(!run.stderr.includes('pre-authorized_code'), 'the offer is never quoted');
    }
  });

  test('present names what a request lacks, before reading it, and never quotes it', async () => {
    const cases: Array<[string, RegExp]> = [
      ['null', /the request is not a URI: pass the openid4vp:\/\/ link, quoted/],
      ['openid4vp://?request_uri=https%3A%2F%2Frp.example%2Fr', /carries no client_id/],
      ['openid4vp://?client_id=x%3Ay&response_type=vp_token', /carries no request_uri: this wallet answers signed requests only/],
      ['openid4vp://?client_id=x%3Ay&request_uri=not-a-url', /the request_uri is not a URL/],
      ['openid4vp://?client_id=x%3Ay&request_uri=ftp%3A%2F%2Frp.example%2Fr', /not an http\(s\) URL/],
    ];
    for (const [given, message] of cases) {
      const run = await wallet('present', given, '--all', '--allow-http');
      assert.equal(run.code, 1, given);
      assert.match(run.stderr, message, given);
      assert.ok(!run.stderr.includes('rp.example'), 'the request is never quoted');
    }
  });

  test('collect with a transaction code: asked for, refused when wrong, accepted when right', async () => {
    const { offerUri, txCode } = await offer({ txCode: true });
    const missing = await wallet('collect', String(offerUri), '--allow-http');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /needs a transaction code: add --tx-code/);
    const wrong = await wallet(
      'collect',
      String(offerUri),
      '--allow-http',
      '--tx-code',
      String(txCode) === '000000' ? '111111' : '000000',
    );
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /invalid_grant/);
    const right = await wallet('collect', String(offerUri), '--allow-http', '--tx-code', String(txCode));
    assert.equal(right.code, 0, right.stderr);
    assert.match(right.stdout, /^collected c2: /m);

    const listed = await wallet('list', '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const json = JSON.parse(listed.stdout);
    assert.deepEqual(
      json.credentials.map((c: { id: string; vct: string; claims: unknown }) => [c.id, c.vct, c.claims]),
      [
        ['c1', vct, SUBJECT],
        ['c2', vct, SUBJECT],
      ],
    );
    assert.equal(JSON.stringify(json).includes('~'), false, 'list shows claims, never the credential itself');
  });

  test('present discloses only what the holder chose of what was asked, and the verifier sees just that', async () => {
    const { requestUri, transactionId, resultToken } = await openVerification(['holder_name', 'adult']);
    const unchosen = await wallet('present', requestUri, '--allow-http', '--credential', 'c1');
    assert.equal(unchosen.code, 2, 'without a terminal the holder must say what to disclose');
    const several = await wallet('present', requestUri, '--allow-http', '--all');
    assert.equal(several.code, 1);
    assert.match(several.stderr, /several credentials match \(c1, c2\)/);
    const notAsked = await wallet(
      'present',
      requestUri,
      '--allow-http',
      '--credential',
      'c1',
      '--claims',
      'holder_name,member_number',
    );
    assert.equal(notAsked.code, 1);
    assert.match(notAsked.stderr, /did not ask for member_number: nothing was sent/);
    assert.equal(await outcome(transactionId, resultToken), null, 'nothing reached the verifier');

    const run = await wallet('present', requestUri, '--allow-http', '--credential', 'c1', '--all');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /asks c1 \(.+\) for: holder_name, adult$/m);
    assert.match(run.stdout, /^the verifier accepted the presentation$/m);
    const seen = await outcome(transactionId, resultToken);
    assert.equal(seen?.ok, true, JSON.stringify(seen));
    assert.deepEqual((seen?.presentation as { claims?: unknown })?.claims, { holder_name: 'Ada Lovelace', adult: true });
  });

  test('a revoked credential is presented, refused, and the refusal is named', async () => {
    const { offerUri, offerId } = await offer();
    const collected = await wallet('collect', String(offerUri), '--allow-http');
    assert.match(collected.stdout, /^collected c3: /m);
    await api('/api/tenants/ghent-library/revoke', { offerId }, 200);
    const { requestUri, transactionId, resultToken } = await openVerification(['holder_name']);
    const run = await wallet('present', requestUri, '--allow-http', '--credential', 'c3', '--claims', 'holder_name');
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^the verifier refused the presentation: credential_revoked: /m);
    assert.equal((await outcome(transactionId, resultToken))?.error, 'credential_revoked');
  });

  test('the holder plane: enrol by presenting, see items, accept an offer, a deposit and a channel, share, vote', async () => {
    const file = join(home, 'member.json');
    const as = (...args: string[]) => wallet(...args, '--wallet', file, '--allow-http');
    const made = await wallet('init', '--wallet', file);
    const account = /^account (\S+)$/m.exec(made.stdout)?.[1] ?? '';
    assert.equal(account.length, 43);
    assert.equal((await as('collect', String((await offer()).offerUri))).code, 0);
    await api('/api/members/enrolment-types', { tenant: 'ghent-library', typeIds: ['library-card'] }, 200);

    const enrolled = await as('enroll', site.origin);
    assert.equal(enrolled.code, 0, enrolled.stderr);
    assert.match(enrolled.stdout, new RegExp(`^enrolled in ghent-library as member with c1 \\(${vct}\\)$`, 'm'));
    const twice = await as('enroll', site.origin);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /the service refused: already_member/);

    const addressed = await offer({ accountId: account });
    const product = await api('/api/products', { tenant: 'ghent-library', kind: 'bill', name: 'Late fees' });
    await api(`/api/products/${product.productId}/approve`, {}, 200);
    const bill = await api('/api/tenants/ghent-library/bills', {
      contractVersion: '0.3.0',
      depositId: 'late-2026-11',
      accountId: account,
      kind: 'bill',
      title: 'Late return fee',
      issuedAt: '2026-11-20T10:00:00Z',
      amount: { value: 350, currency: 'EUR' },
    });
    const items = await as('items', site.origin);
    assert.equal(items.code, 0, items.stderr);
    assert.match(items.stdout, new RegExp(`^${addressed.itemId}  offer  pending$`, 'm'));
    assert.match(items.stdout, new RegExp(`^${bill.itemId}  deposit  pending$`, 'm'));
    assert.match(items.stdout, /^ {2}Late return fee, from Ghent Library \(ghent-library\)$/m);

    const collected = await as('accept', site.origin, String(addressed.itemId));
    assert.equal(collected.code, 0, collected.stderr);
    assert.match(collected.stdout, /^collected c2: /m);
    const paid = await as('accept', site.origin, String(bill.itemId));
    assert.equal(paid.code, 0, paid.stderr);
    assert.match(paid.stdout, /^ {2}amount: 3\.50 EUR$/m);

    const asked = await api('/api/org-channels/request', { tenant: 'ghent-library', accountId: account, elements: ['amount'] });
    const channel = await as('accept', site.origin, String(asked.itemId));
    assert.match(channel.stdout, /^ {2}channel with ghent-library is active; it asks for amount$/m);
    const shared = await as('share', site.origin, String(bill.itemId), '--with', 'ghent-library', '--elements', 'amount');
    assert.equal(shared.code, 0, shared.stderr);
    assert.match(shared.stdout, /^shared with ghent-library \(channel active\): amount$/m);
    const unknown = await as('share', site.origin, String(bill.itemId), '--with', 'ghent-library', '--elements', 'colour');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /unknown_element/);

    const hour = 3600 * 1000;
    const proposal = await api('/api/proposals', {
      tenant: 'ghent-library',
      action: 'create',
      title: 'Open on Sundays?',
      options: ['Yes', 'No'],
      opensAt: new Date(Date.now() - hour).toISOString(),
      closesAt: new Date(Date.now() + hour).toISOString(),
    });
    await api('/api/proposals', { tenant: 'ghent-library', action: 'open', proposalId: proposal.proposalId }, 200);
    const me = await as('me', site.origin);
    assert.equal(me.code, 0, me.stderr);
    assert.match(me.stdout, /^member of Ghent Library \(ghent-library\): tier member, active, balance 0$/m);
    assert.match(me.stdout, new RegExp(`^proposal ${proposal.proposalId} of ghent-library: Open on Sundays\\?$`, 'm'));
    const voted = await as('vote', site.origin, String(proposal.proposalId), 'Yes');
    assert.equal(voted.code, 0, voted.stderr);
    assert.match(voted.stdout, /^voted Yes on /m);
    const again = await as('vote', site.origin, String(proposal.proposalId), 'No');
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already_voted/);
    assert.match((await as('me', site.origin)).stdout, /; voted$/m);

    for (const mistaken of [
      ['vote', site.origin],
      ['items', 'not-a-url'],
      ['items', `${site.origin}/api`],
      ['accept', site.origin, 'not-an-item'],
      ['share', site.origin, String(bill.itemId), '--with', 'ghent-library'],
    ]) {
      const run = await as(...mistaken);
      assert.equal(run.code, 2, `${mistaken.join(' ')}: ${run.stderr}`);
    }
  });

  test('a damaged wallet file is refused, never trusted', async () => {
    const other = join(home, 'damaged.json');
    writeFileSync(other, JSON.stringify({ format: 'openrail-wallet/1', key: { kty: 'EC' }, credentials: [] }));
    const run = await wallet('list', '--wallet', other);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /not a usable wallet: it has no private device key/);
    const missing = await wallet('list', '--wallet', join(home, 'absent.json'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no wallet at .*: run "openrail wallet init" first/);
  });
});

test('what issuers and verifiers send is shown, never obeyed by the terminal', () => {
  assert.equal(printable('Ada\u001b[2J\u202eevil\r\n'), 'Ada\\u001b[2J\\u202eevil\\u000d\\u000a');
  assert.equal(printable('Zoë Ñandú 🚋'), 'Zoë Ñandú 🚋');
});
