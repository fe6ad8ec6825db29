/**
 * Reading the audit log over HTTP (docs/backoffice/audit.md), on each engine: every filter of
 * GET /api/admin/audit against the log read directly, pages without gaps or repeats in both
 * orders, a tenant-admin held to its tenant, one entry with its hashes; the chain verification
 * finding an edited and a removed row; and the standalone export verifier run as a child process
 * on a real export and on an edited one.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { LightMyRequestResponse } from 'fastify';
import { type TestDatabase, testDatabases } from '../../../../test/helpers/databases.ts';
import { registerType } from '../../../../test/helpers/issuance.ts';
import { signedInOperator } from '../../../../test/helpers/operators.ts';
import { owner, startRail, type TestRail } from '../../../../test/helpers/rail.ts';
import { readAuditLog } from '../../../adapters/sql/kernel/sql-audit-trail.ts';
import { SqlKernelViews } from '../../../adapters/sql/kernel/sql-kernel-views.ts';
import type { AuditEntry } from '../../../core/audit-chain.ts';
import { encodeCursor } from '../../../http/admin/kit.ts';
import { verifyAuditChain } from './audit-reader.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const SCRIPT = 'scripts/verify-audit-export.ts';

type View = Omit<AuditEntry, 'at'> & { at: string };
const view = (e: AuditEntry): View => ({ ...e, at: new Date(e.at).toISOString() });

/** Runs the export verifier as an auditor would. */
function verifyExport(file: string, ...args: string[]) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', SCRIPT, file, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: run.status, out: run.stdout.trim(), err: run.stderr.trim() };
}

for (const factory of testDatabases()) {
  describe(`the audit log, read (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    let ana: { authorization: string };
    let alphaAdmin: { authorization: string };
    let dir: string;

    const get = (url: string, headers: Record<string, string> = owner) => rail.app.inject({ method: 'GET', url, headers });
    const ok = (res: LightMyRequestResponse) => {
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    /** Every entry of a list query, page by page. */
    const all = async (query: string, headers: Record<string, string> = owner, limit = 4) => {
      const seen: View[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const body: { entries: View[]; nextCursor: string | null } = ok(
          await get(`/api/admin/audit?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`, headers),
        );
        assert.ok(body.entries.length <= limit);
        seen.push(...body.entries);
        cursor = body.nextCursor;
        pages++;
      } while (cursor !== null && pages < 500);
      return seen;
    };
    const log = async () => (await readAuditLog(rail.db, 1, 10_000)).map(view);
    const newestFirst = (entries: View[]) => [...entries].sort((a, b) => b.seq - a.seq);

    before(async () => {
      db = await factory.create();
      rail = await startRail(db, {}, undefined, { runJobs: false });
      dir = mkdtempSync(join(tmpdir(), 'openrail-audit-'));
      for (const name of ['Alpha', 'Beta']) {
        const made = await rail.app.inject({ method: 'POST', url: '/api/tenants', headers: owner, payload: { name } });
        assert.equal(made.statusCode, 201, made.body);
      }
      ana = await signedInOperator(rail.app, 'ana', ['owner']);
      alphaAdmin = await signedInOperator(rail.app, 'alpha-admin', ['tenant-admin'], 'alpha');
      // Changes by ana (operator:ana) and by the owner token, in both tenants.
      for (const [tenant, name, headers] of [
        ['alpha', 'Pass', ana],
        ['beta', 'Card', ana],
        ['alpha', 'Ticket', owner],
      ] as const) {
        const res = await rail.app.inject({
          method: 'POST',
          url: '/api/types',
          headers,
          payload: { tenant, name, claims: ['holder_name'] },
        });
        assert.equal(res.statusCode, 201, res.body);
      }
      await registerType(rail.app, 'beta', 'Badge', ['holder_name']);
      const updated = await rail.app.inject({
        method: 'POST',
        url: '/api/tenants/update',
        headers: ana,
        payload: { tenant: 'alpha', description: 'The alpha tenant.' },
      });
      assert.equal(updated.statusCode, 200, updated.body);
    });
    after(async () => {
      await rail.stop();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('lists every entry newest first, with every field, in pages without gaps or repeats', async () => {
      const expected = newestFirst(await log());
      assert.ok(expected.length >= 12, `${expected.length} entries`);
      assert.deepEqual(await all(''), expected);
      assert.deepEqual(await all('', owner, 200), expected, 'one page holds the same');
      const oldestFirst = await all('&order=asc', owner, 5);
      assert.deepEqual(
        oldestFirst.map((e) => e.seq),
        expected.map((e) => e.seq).reverse(),
      );
      const first = oldestFirst[0] as View;
      assert.equal(first.seq, 1);
      assert.equal(first.prevHash, '0'.repeat(64));
      assert.match(first.hash, /^[0-9a-f]{64}$/);
    });

    test('each filter narrows to exactly the entries it names', async () => {
      const entries = newestFirst(await log());
      const seqs = (list: View[]) => list.map((e) => e.seq);
      const byAna = entries.filter((e) => e.actor === 'operator:ana');
      assert.ok(byAna.length >= 4);
      assert.deepEqual(seqs(await all('&actor=operator:ana')), seqs(byAna));
      assert.deepEqual(seqs(await all('&actor=owner-token')), seqs(entries.filter((e) => e.actor === 'owner-token')));
      assert.deepEqual(seqs(await all('&tenant=beta')), seqs(entries.filter((e) => e.tenant === 'beta')));
      const registered = entries.filter((e) => e.action === 'type.registered');
      assert.ok(registered.length >= 4);
      assert.deepEqual(seqs(await all('&action=type.registered')), seqs(registered));
      const tenantActions = entries.filter((e) => e.action.startsWith('tenant.'));
      assert.ok(new Set(tenantActions.map((e) => e.action)).size >= 2, 'tenant.created and tenant.profile_updated');
      assert.deepEqual(seqs(await all('&action=tenant.')), seqs(tenantActions));
      assert.deepEqual(await all('&action=tenant'), [], 'without its dot an action is exact');
      assert.deepEqual(
        seqs(await all('&tenant=alpha&actor=operator:ana&action=type.')),
        seqs(entries.filter((e) => e.tenant === 'alpha' && e.actor === 'operator:ana' && e.action.startsWith('type.'))),
      );
      // since inclusive, until exclusive, on `at`.
      const middle = entries[Math.floor(entries.length / 2)] as View;
      const at = Date.parse(middle.at);
      assert.deepEqual(
        seqs(await all(`&since=${encodeURIComponent(middle.at)}`)),
        seqs(entries.filter((e) => Date.parse(e.at) >= at)),
      );
      assert.deepEqual(
        seqs(await all(`&until=${encodeURIComponent(middle.at)}`)),
        seqs(entries.filter((e) => Date.parse(e.at) < at)),
      );
      assert.deepEqual(await all('&since=2999-01-01'), []);
    });

    test('one entry answers with its hashes; a missing seq is unknown_audit_entry', async () => {
      const entries = await log();
      const entry = entries.find((e) => e.action === 'tenant.profile_updated') as View;
      assert.deepEqual(ok(await get(`/api/admin/audit/${entry.seq}`)), entry);
      const missing = await get('/api/admin/audit/999999');
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().error, 'unknown_audit_entry');
    });

    test('a tenant-admin sees its own tenant only, and is refused another', async () => {
      const entries = newestFirst(await log());
      const alpha = entries.filter((e) => e.tenant === 'alpha');
      assert.ok(alpha.length >= 4);
      assert.deepEqual(await all('', alphaAdmin), alpha);
      assert.deepEqual(await all('&tenant=alpha', alphaAdmin), alpha);
      const other = await get('/api/admin/audit?tenant=beta', alphaAdmin);
      assert.equal(other.statusCode, 403);
      assert.equal(other.json().error, 'forbidden');
      // One entry of its own; another tenant's and one of no tenant answer as a missing one does.
      const own = alpha[0] as View;
      assert.deepEqual(ok(await get(`/api/admin/audit/${own.seq}`, alphaAdmin)), own);
      const betas = entries.find((e) => e.tenant === 'beta') as View;
      const platform = entries.find((e) => e.tenant === null) as View;
      for (const seq of [betas.seq, platform.seq, 999999]) {
        const res = await get(`/api/admin/audit/${seq}`, alphaAdmin);
        assert.equal(res.statusCode, 404, `seq ${seq}`);
        assert.equal(res.json().error, 'unknown_audit_entry');
      }
      assert.equal((await get(`/api/admin/audit/${own.seq}?tenant=beta`, alphaAdmin)).statusCode, 403);
      // A platform operator naming a tenant sees that tenant's entries only.
      assert.equal((await get(`/api/admin/audit/${betas.seq}?tenant=alpha`)).statusCode, 404);
    });

    test('refuses a bad cursor, a cursor of the other order, a bad filter and roles outside the matrix', async () => {
      const page = ok(await get('/api/admin/audit?limit=2'));
      assert.ok(page.nextCursor);
      for (const url of [
        '/api/admin/audit?cursor=!!',
        `/api/admin/audit?cursor=${encodeCursor(['x'])}`,
        `/api/admin/audit?cursor=${encodeCursor([-1, 'd'])}`,
        `/api/admin/audit?order=asc&cursor=${page.nextCursor}`,
        '/api/admin/audit?action=Org.%25',
        '/api/admin/audit?limit=201',
        '/api/admin/audit?since=2026-02-01&until=2026-01-01',
        '/api/admin/audit/0',
      ]) {
        const res = await get(url);
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.equal(res.json().error, 'invalid_request');
      }
      const issuer = await signedInOperator(rail.app, 'legacy-issuer', ['issuer']);
      assert.equal((await get('/api/admin/audit', issuer)).statusCode, 403);
      assert.equal((await get('/api/admin/audit')).statusCode, 200);
      assert.equal((await get('/api/admin/audit', {})).statusCode, 401);
    });

    test('an export through GET /api/admin/audit verifies on its own, and an edited one does not', async () => {
      const entries = await all('&order=asc', owner, 3);
      const head = await rail.db.selectFrom('audit_head').selectAll().executeTakeFirstOrThrow();
      assert.equal(entries.length, Number(head.seq));

      const array = join(dir, 'export.json');
      writeFileSync(array, JSON.stringify(entries, null, 2));
      const good = verifyExport(array);
      assert.equal(good.status, 0, good.err);
      assert.equal(good.out, `ok: ${entries.length} entries, seq 1..${entries.length}, head ${head.hash}`);

      // JSON Lines, shuffled: sorted by seq before it is checked.
      const lines = join(dir, 'export.jsonl');
      writeFileSync(
        lines,
        `${[...entries]
          .reverse()
          .map((e) => JSON.stringify(e))
          .join('\n')}\n`,
      );
      assert.equal(verifyExport(lines).status, 0);

      // A run that does not start at 1 needs the hash before it.
      const tail = join(dir, 'tail.json');
      writeFileSync(tail, JSON.stringify(entries.slice(4)));
      const unanchored = verifyExport(tail);
      assert.equal(unanchored.status, 1);
      assert.match(unanchored.out, /^broken at seq 5: .*--from-hash/);
      assert.equal(verifyExport(tail, '--from-hash', (entries[3] as View).hash).status, 0);
      assert.equal(verifyExport(tail, '--from-hash', (entries[2] as View).hash).status, 1);

      const victim = entries[6] as View;
      const edited = entries.map((e) => (e.seq === victim.seq ? { ...e, detail: { ...e.detail, name: 'someone else' } } : e));
      writeFileSync(array, JSON.stringify(edited));
      const bad = verifyExport(array);
      assert.equal(bad.status, 1);
      assert.match(bad.out, new RegExp(`^broken at seq ${victim.seq}: its fields hash to`));

      writeFileSync(array, JSON.stringify(entries.filter((e) => e.seq !== victim.seq)));
      const gap = verifyExport(array);
      assert.equal(gap.status, 1);
      assert.match(gap.out, new RegExp(`^broken at seq ${victim.seq}: missing`));

      writeFileSync(array, 'not json\n');
      assert.equal(verifyExport(array).status, 2);
    });

    test('the chain verification walks every entry in batches and names the first edited or removed one', async () => {
      const reader = new SqlKernelViews(rail.db);
      const head = await reader.auditHead();
      assert.ok(head.seq >= 12);
      assert.deepEqual(await verifyAuditChain(reader, 5), {
        verified: true,
        checked: head.seq,
        lastSeq: head.seq,
        firstBroken: null,
        reason: null,
      });

      // An edited row: its hash no longer covers its fields.
      const original = await rail.db.selectFrom('audit_log').selectAll().where('seq', '=', 7).executeTakeFirstOrThrow();
      await rail.db.updateTable('audit_log').set({ actor: 'operator:mallory' }).where('seq', '=', 7).execute();
      assert.deepEqual(await verifyAuditChain(reader, 5), {
        verified: false,
        checked: 6,
        lastSeq: head.seq,
        firstBroken: 7,
        reason: 'hash',
      });
      // The same edit with its hash recomputed breaks the link of the entry after it.
      const forged = (await reader.auditEntry(7)) as AuditEntry;
      const { auditHash } = await import('../../../core/audit-chain.ts');
      await rail.db
        .updateTable('audit_log')
        .set({ hash: auditHash(forged) })
        .where('seq', '=', 7)
        .execute();
      const relinked = await verifyAuditChain(reader, 5);
      assert.equal(relinked.firstBroken, 8);
      assert.equal(relinked.reason, 'link');
      await rail.db.updateTable('audit_log').set({ actor: original.actor, hash: original.hash }).where('seq', '=', 7).execute();
      assert.equal((await verifyAuditChain(reader, 5)).verified, true);

      // A removed row, in the middle of a batch and at the start of one.
      for (const seq of [8, 11]) {
        const row = await rail.db.selectFrom('audit_log').selectAll().where('seq', '=', seq).executeTakeFirstOrThrow();
        await rail.db.deleteFrom('audit_log').where('seq', '=', seq).execute();
        assert.deepEqual(await verifyAuditChain(reader, 5), {
          verified: false,
          checked: seq - 1,
          lastSeq: head.seq,
          firstBroken: seq,
          reason: 'missing',
        });
        await rail.db.insertInto('audit_log').values(row).execute();
      }

      // The last row removed: the head names an entry that is not there.
      const last = await rail.db.selectFrom('audit_log').selectAll().where('seq', '=', head.seq).executeTakeFirstOrThrow();
      await rail.db.deleteFrom('audit_log').where('seq', '=', head.seq).execute();
      const cut = await verifyAuditChain(reader, 5);
      assert.equal(cut.firstBroken, head.seq);
      assert.equal(cut.reason, 'missing');
      await rail.db.insertInto('audit_log').values(last).execute();

      // The head moved off the last entry's hash.
      await rail.db
        .updateTable('audit_head')
        .set({ hash: 'f'.repeat(64) })
        .where('id', '=', 1)
        .execute();
      const moved = await verifyAuditChain(reader, 5);
      assert.equal(moved.firstBroken, head.seq);
      assert.equal(moved.reason, 'head');
      await rail.db.updateTable('audit_head').set({ hash: head.hash }).where('id', '=', 1).execute();
      assert.equal((await verifyAuditChain(reader)).verified, true);
    });
  });
}
