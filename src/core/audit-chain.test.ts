import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { auditHash, auditHashText, GENESIS_HASH, type UnhashedEntry } from './audit-chain.ts';
import { canonicalJson } from './canonical-json.ts';

/** The entry of docs/audit.md, with the hash the page gives. */
const DOCUMENTED: UnhashedEntry = {
  seq: 1,
  at: 1795378111768,
  actor: 'system:seed',
  action: 'tenant.created',
  tenant: 'root',
  target: 'root',
  detail: { did: 'did:web:rail.example.test', name: 'openrail' },
  prevHash: GENESIS_HASH,
};

const joined = (entry: UnhashedEntry) => {
  const { before, between, after } = auditHashText(entry);
  return `${before}${entry.prevHash}${between}${entry.seq}${after}`;
};

test('the text cut around prevHash and seq, joined again, is the canonical JSON auditHash hashes', () => {
  const entries: UnhashedEntry[] = [
    DOCUMENTED,
    { ...DOCUMENTED, seq: 9007199254740991, tenant: null, target: null, detail: {} },
    {
      ...DOCUMENTED,
      seq: 120,
      actor: 'operator:ana',
      action: 'operator.roles_changed',
      detail: { roles: ['owner'], seq: 3, prevHash: 'x', zz: { '10': 'é "quoted" \u0000', '2': [1.5, null, true] } },
      prevHash: createHash('sha256').update('previous').digest('hex'),
    },
  ];
  for (const entry of entries) {
    const { seq, at, actor, action, tenant, target, detail, prevHash } = entry;
    assert.equal(joined(entry), canonicalJson({ seq, at, actor, action, tenant, target, detail, prevHash }));
    assert.equal(createHash('sha256').update(joined(entry), 'utf8').digest('hex'), auditHash(entry));
  }
  assert.equal(auditHash(DOCUMENTED), '0fbd7083f75308af845335d052415d2b59d6577b686b463e36141118095eb9ef');
});
