/**
 * Schema /3 on the command line: `openrail conformance --schema 3` runs a verifier against the
 * ISO mdoc cases beside those of /2, the reference verifier (`openrail verify`) passes it at level
 * 2, and answers every mdoc vector with the failure it expects, on the line protocol, with its
 * ledger under --ledger. Every run is a real `node bin/openrail.js` process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../../test/helpers/process.ts';
import { mintFreshSet } from '../adapters/crypto/conformance-mint.ts';
import { CONFORMANCE_SCHEMA_V3, vectorsDigest } from '../core/conformance/vector-set.ts';
import type { ConformanceVector } from '../core/conformance/vectors.ts';
import { type MdocVectorInput, VECTOR_IDS_V3 } from '../core/conformance/vectors-v3.ts';
import { CHECKS, deriveVerdict, type Ledger } from '../core/verifier/ledger.ts';

const BIN = join(REPO_ROOT, 'bin', 'openrail.js');
const REFERENCE = 'node bin/openrail.js verify';

/** Variables a developer's or CI's shell may carry that would change what the child does. */
const SCRUBBED = /^(OPENRAIL_|NODE_TEST_CONTEXT$|NODE_OPTIONS$|NODE_ENV$)/;
const ENV: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !SCRUBBED.test(k)) ENV[k] = v;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ReturnType<typeof spawn>>();

/** `node bin/openrail.js <args>` with `input` on stdin; killed after a minute so no test can hang. */
function openrail(args: string[], input = ''): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
    child.once('close', (code) => {
      clearTimeout(guard);
      children.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

const linesOf = (stdout: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The runner's result lines and its summary. */
function readReport(stdout: string) {
  const lines = stdout.trimEnd().split('\n');
  const summary = lines.pop() ?? '';
  const results = lines.map((line) => {
    const m = /^(pass|FAIL) {2}(\S+) +(.+)$/.exec(line);
    assert.ok(m, `a result line: ${line}`);
    return { status: m[1] as string, id: m[2] as string, detail: m[3] as string };
  });
  return { results, summary };
}

const MINTED = await mintFreshSet(CONFORMANCE_SCHEMA_V3, Math.floor(Date.now() / 1000));
const MDOC = MINTED.set.vectors.filter((v) => v.id.startsWith('mdoc-')) as ConformanceVector<MdocVectorInput>[];
const request = (id: string, input: unknown) => JSON.stringify({ id, input });

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'openrail-conformance-v3-'));
});
after(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('openrail conformance: schema /3, the ISO mdoc cases', { concurrency: 2 }, () => {
  it('--schema 3: the reference verifier passes all 31 vectors of a set the runner mints, at level 2', async () => {
    const run = await openrail(['conformance', '--schema', '3', '--level', '2', '--verifier', REFERENCE]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const { results, summary } = readReport(run.stdout);
    assert.deepEqual(
      results.map((r) => r.id),
      [...VECTOR_IDS_V3],
    );
    assert.deepEqual(
      results.filter((r) => r.status !== 'pass'),
      [],
    );
    assert.equal(results.find((r) => r.id === 'mdoc-tampered-element')?.detail, 'reject (element_digest_mismatch)');
    assert.match(summary, /^31\/31 vectors passed at level 2 \(svc-open-rail-conformance\/3 1\.0\.0, sha256:[0-9a-f]{64}\)$/);
    assert.ok(!summary.includes(MINTED.set.digest), 'the runner mints its own set');
  });

  it('--vectors <file> of /3: the set from the file is used, and the reference verifier passes it at level 2', async () => {
    const file = join(dir, 'set-3.json');
    writeFileSync(file, MINTED.body);
    const run = await openrail(['conformance', '--vectors', file, '--level', '2', '--verifier', REFERENCE]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(readReport(run.stdout).summary, new RegExp(`^31/31 vectors passed at level 2 .*${MINTED.set.digest}\\)$`));
  });

  it('a verifier that accepts everything fails every vector of /3 that is not accepted, the mdoc ones among them', async () => {
    const run = await openrail(['conformance', '--schema', '3', '--verifier', 'node test/fixtures/verifiers/accept-all.mjs']);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const failed = readReport(run.stdout)
      .results.filter((r) => r.status === 'FAIL')
      .map((r) => r.id);
    assert.deepEqual(
      failed,
      MINTED.set.vectors.filter((v) => v.expect.verdict !== 'accept').map((v) => v.id),
    );
    assert.deepEqual(
      failed.filter((id) => id.startsWith('mdoc-')),
      MDOC.slice(1).map((v) => v.id),
    );
  });

  it('a /3 file without one of its mdoc vectors, its digest made again: exit 2, the run is not made', async () => {
    const short = JSON.parse(MINTED.body) as typeof MINTED.set;
    short.vectors = short.vectors.filter((v) => v.id !== 'mdoc-revoked');
    short.digest = vectorsDigest(short.vectors);
    const file = join(dir, 'short-3.json');
    writeFileSync(file, JSON.stringify(short));
    const run = await openrail(['conformance', '--vectors', file, '--verifier', REFERENCE]);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /cannot use the vector set: the set does not hold the 31 vectors of svc-open-rail-conformance\/3/);
  });
});

describe('openrail verify: mdoc inputs', () => {
  let answers: Map<unknown, { verdict: string; failure: string | null; claims: unknown; ledger: Ledger }>;
  before(async () => {
    const run = await openrail(['verify', '--ledger'], `${MDOC.map((v) => request(v.id, v.input)).join('\n')}\n`);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    const lines = linesOf(run.stdout);
    assert.deepEqual(
      lines.map((a) => a.id),
      MDOC.map((v) => v.id),
      'one answer per line, in order',
    );
    answers = new Map(lines.map((a) => [a.id, a as never]));
  });

  for (const id of VECTOR_IDS_V3.filter((x) => x.startsWith('mdoc-'))) {
    it(`answers ${id} as it expects, with the ten checks under --ledger`, () => {
      const v = MDOC.find((x) => x.id === id) as ConformanceVector<MdocVectorInput>;
      const answer = answers.get(id);
      assert.ok(answer);
      assert.deepEqual(Object.keys(answer).sort(), ['claims', 'failure', 'id', 'ledger', 'verdict']);
      assert.equal(answer.verdict, v.expect.verdict);
      assert.equal(answer.failure, v.expect.failure);
      assert.deepEqual(answer.claims, v.expect.claims);
      assert.deepEqual(
        answer.ledger.map((e) => e.check),
        [...CHECKS],
      );
      assert.deepEqual(deriveVerdict(answer.ledger), { verdict: answer.verdict, failure: answer.failure });
      if (v.proves !== 'all') {
        assert.deepEqual(answer.ledger.find((e) => e.check === v.proves)?.failure, v.expect.failure, 'the broken link');
      } else {
        assert.ok(answer.ledger.every((e) => e.status === 'passed'));
      }
    });
  }

  it('without --ledger answers {id, verdict, failure, claims}; an mdoc input of the wrong shape gets an error, and the next line is judged', async () => {
    const valid = MDOC[0] as ConformanceVector<MdocVectorInput>;
    const { trustAnchors: _, ...unanchored } = valid.input;
    const lines = [
      request('no-anchors', unanchored),
      request('not-der', { ...valid.input, trustAnchors: ['AAAA'] }),
      request('bad-transcript', { ...valid.input, expected: { ...valid.input.expected, sessionTranscript: 'not base64url!' } }),
      request('claims-as-names', { ...valid.input, expected: { ...valid.input.expected, claims: ['given_name'] } }),
      request('other-format', { ...valid.input, format: 'ldp_vc' }),
      request('not-a-device-response', { ...valid.input, presentation: 'AAAA' }),
      request('valid', valid.input),
    ];
    const run = await openrail(['verify'], `${lines.join('\n')}\n`);
    assert.equal(run.code, 0, run.stderr);
    const got = linesOf(run.stdout);
    assert.deepEqual(
      got.map((a) => a.id),
      ['no-anchors', 'not-der', 'bad-transcript', 'claims-as-names', 'other-format', 'not-a-device-response', 'valid'],
    );
    for (const answer of got.slice(0, 5)) assert.deepEqual(Object.keys(answer).sort(), ['error', 'id'], String(answer.id));
    assert.match(String(got[0]?.error), /trustAnchors is not a list .*an mdoc input needs them/);
    assert.equal(got[1]?.error, 'input.trustAnchors holds something that is not a DER certificate');
    assert.match(String(got[2]?.error), /sessionTranscript is not 1 to 4096 bytes in base64url/);
    assert.match(String(got[3]?.error), /claims is not a list of at most 256 \[namespace, element\] pairs/);
    assert.match(String(got[4]?.error), /input.format is neither dc\+sd-jwt nor mso_mdoc/);
    assert.deepEqual(got[5], { id: 'not-a-device-response', verdict: 'reject', failure: 'malformed_presentation', claims: null });
    assert.deepEqual(got[6], { id: 'valid', verdict: 'accept', failure: null, claims: valid.expect.claims });
  });
});
