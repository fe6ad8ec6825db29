import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { verifyHolderJws } from '../http/auth/holder-jws.ts';
import { holderAuthorization, holderJws } from './holder-jws.ts';
import { createWallet } from './wallet-file.ts';

test("the wallet's holder JWS is what the service's holder plane accepts, for the wallet's account", () => {
  const dir = mkdtempSync(join(tmpdir(), 'openrail-wallet-'));
  try {
    const wallet = createWallet(join(dir, 'w.json'));
    const origin = 'https://rail.example.org';
    const now = Date.now();
    const jws = holderJws(wallet, `${origin}/member/me`, { nowMs: now });
    const accepted = verifyHolderJws(jws, origin, now);
    assert.equal(accepted.thumbprint, wallet.accountId);
    assert.equal(accepted.claims.aud, origin, 'aud is the origin, whatever path the request goes to');
    assert.throws(() => verifyHolderJws(jws, 'https://other.example.org', now), /aud does not name this service/);
    assert.throws(() => verifyHolderJws(jws, origin, now + 301_000), /outside the five-minute window/);
    const [a, b] = [holderAuthorization(wallet, origin), holderAuthorization(wallet, origin)];
    assert.match(a, /^Holder [\w-]+\.[\w-]+\.[\w-]+$/);
    assert.notEqual(
      verifyHolderJws(a.slice(7), origin, Date.now()).claims.jti,
      verifyHolderJws(b.slice(7), origin, Date.now()).claims.jti,
      'a fresh jti each time',
    );
    const approval = holderJws(wallet, `${origin}/account/approve?t=x`, { nowMs: now, audiencePath: '/account/approve' });
    const approved = verifyHolderJws(approval, `${origin}/account/approve`, now);
    assert.equal(approved.thumbprint, wallet.accountId);
    assert.equal(approved.claims.aud, `${origin}/account/approve`, 'an operation with its own audience is named whole');
    assert.throws(() => verifyHolderJws(approval, origin, now), /aud does not name this service/);
    assert.throws(() => holderJws(wallet, origin, { audiencePath: 'account' }), /not an audience path/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
