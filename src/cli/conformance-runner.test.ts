import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, REPO_ROOT } from '../../test/helpers/process.ts';
import { mintFreshSet } from '../adapters/crypto/conformance-mint.ts';
import { newP256KeyPair } from '../adapters/crypto/p256-keys.ts';
import { CONFORMANCE_SCHEMA_V2, type ConformanceSet, mintConformanceSet } from '../core/conformance/vector-set.ts';
import type { ConformanceVector } from '../core/conformance/vectors.ts';
import { CHECKS, deriveVerdict, type Ledger } from '../core/verifier/ledger.ts';

/**
 * The CLI end to end: `openrail verify` on the conformance line protocol, and `openrail
 * conformance` driving the reference verifier and verifiers that are wrong in known ways
 * (test/fixtures/verifiers). Every run is a real `node bin/openrail.js` process.
 */

const BIN = join(REPO_ROOT, 'bin', 'openrail.js');
const FIXTURES = 'test/fixtures/verifiers';
const REFERENCE = 'node bin/openrail.js verify';
const tsFixture = (name: string, ...args: string[]) => ['node --import tsx', `${FIXTURES}/${name}`, ...args].join(' ');

/** Variables a developer's or CI's shell may carry that would change what the child does. */
const SCRUBBED = /^(OPENRAIL_|NODE_TEST_CONTEXT$|NODE_OPTIONS$|NODE_ENV$)/;
const ENV: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !SCRUBBED.test(k)) ENV[k] = v;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The run outlived `guardMs` and was SIGKILLed. */
  guardFired: boolean;
}

interface RunOptions {
  /** Written to stdin, which is then closed. */
  input?: string;
  /** SIGKILL the process after this long, so no test can hang (default 60 s). */
  guardMs?: number;
  /** Called when the guard fires, before the process is killed. */
  onGuard?: () => void;
}

const children = new Set<ReturnType<typeof spawn>>();

/** `node bin/openrail.js <args>` from the repository root; resolves when its pipes have closed. */
function openrail(args: string[], { input = '', guardMs = 60_000, onGuard }: RunOptions = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    let guardFired = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const guard = setTimeout(() => {
      guardFired = true;
      onGuard?.();
      child.kill('SIGKILL');
    }, guardMs);
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
    child.once('close', (code, signal) => {
      clearTimeout(guard);
      children.delete(child);
      resolve({ code, signal, stdout, stderr, guardFired });
    });
  });
}

interface Report {
  results: { status: 'pass' | 'FAIL'; id: string; detail: string }[];
  notes: string[];
  summary: { passed: number; total: number; level: number; schema: string; setVersion: string; digest: string };
}

/** The runner's report; every stdout line must be a result, a note or the closing summary. */
function readReport(stdout: string): Report {
  const lines = stdout.split('\n');
  assert.equal(lines.pop(), '', 'the report ends with a newline');
  const last = lines.pop() ?? '';
  const summary = /^(\d+)\/(\d+) vectors passed at level ([12]) \((\S+) (\S+), (sha256:[0-9a-f]{64})\)$/.exec(last);
  assert.ok(summary, `the last line is the summary: ${last}`);
  const report: Report = {
    results: [],
    notes: [],
    summary: {
      passed: Number(summary[1]),
      total: Number(summary[2]),
      level: Number(summary[3]),
      schema: summary[4] as string,
      setVersion: summary[5] as string,
      digest: summary[6] as string,
    },
  };
  for (const line of lines) {
    const result = /^(pass|FAIL) {2}(\S+) +(.+)$/.exec(line);
    const note = /^note {2}(.+)$/.exec(line);
    if (result)
      report.results.push({ status: result[1] as 'pass' | 'FAIL', id: result[2] as string, detail: result[3] as string });
    else if (note) report.notes.push(note[1] as string);
    else assert.fail(`an unexpected report line: ${line}`);
  }
  return report;
}

const mint = (): { set: ConformanceSet; body: string } =>
  mintConformanceSet({ now: Math.floor(Date.now() / 1000), random: (n) => randomBytes(n), newKey: newP256KeyPair });

/** A set minted by the test, so the vectors' ids, expectations and `proves` are known. */
const MINTED = mint();
const MINTED_V2 = await mintFreshSet(CONFORMANCE_SCHEMA_V2, Math.floor(Date.now() / 1000));
const VECTORS = MINTED.set.vectors;
const IDS = VECTORS.map((v) => v.id);
const vector = (id: string): ConformanceVector => VECTORS.find((v) => v.id === id) as ConformanceVector;

const failedIds = (report: Report) => report.results.filter((r) => r.status === 'FAIL').map((r) => r.id);
const TIMEOUT_NOTE = /^the verifier did not answer every vector within (\d+(\.\d+)?) s$/;

/** Every vector reported once, in the set's order. */
function assertEveryVectorOnce(report: Report, set: ConformanceSet = MINTED.set) {
  assert.deepEqual(
    report.results.map((r) => r.id),
    set.vectors.map((v) => v.id),
  );
  assert.equal(report.summary.total, set.vectors.length);
  assert.equal(report.summary.passed, report.results.filter((r) => r.status === 'pass').length);
}

let dir: string;
let setFile: string;
/** pid files of silent verifiers, so none can outlive the suite even if the runner leaves it behind. */
const pidFiles: string[] = [];

const readPid = (file: string): number | undefined => (existsSync(file) ? Number(readFileSync(file, 'utf8')) : undefined);

/** Alive and not a zombie waiting to be reaped. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

async function waitUntilGone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (isRunning(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

function killSilent(file: string) {
  const pid = readPid(file);
  if (pid && isRunning(pid)) process.kill(pid, 'SIGKILL');
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'openrail-conformance-'));
  setFile = join(dir, 'set.json');
  writeFileSync(setFile, MINTED.body);
});

after(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const file of pidFiles) killSilent(file);
  rmSync(dir, { recursive: true, force: true });
});

const newPidFile = (name: string) => {
  const file = join(dir, `${name}.pid`);
  pidFiles.push(file);
  return file;
};

describe('openrail verify: the conformance line protocol', { concurrency: true }, () => {
  it('answers {id, verdict, failure, claims} per line, in order, as each line arrives; errors apart from verdicts; exit 0 at EOF', async () => {
    const child = spawn(process.execPath, [BIN, 'verify'], { cwd: REPO_ROOT, env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const request = (v: ConformanceVector) => JSON.stringify({ id: v.id, input: v.input });

    // The first answer comes before stdin is closed: the verifier streams, it does not wait for EOF.
    child.stdin.write(`\n${request(VECTORS[0] as ConformanceVector)}\n`);
    const firstAnswer = await new Promise<boolean>((resolve) => {
      const onData = () => {
        if (stdout.includes('\n')) {
          child.stdout.off('data', onData);
          resolve(true);
        }
      };
      child.stdout.on('data', onData);
      child.once('close', () => resolve(false));
    });
    assert.ok(firstAnswer, `an answer before EOF; stderr: ${stderr}`);

    const { expected: _dropped, ...withoutExpected } = vector('valid').input;
    const rest = [
      ...VECTORS.slice(1).map(request),
      '   ',
      'this is not JSON',
      JSON.stringify({ input: vector('valid').input }),
      JSON.stringify({ id: { nested: true }, input: vector('valid').input }),
      JSON.stringify({ id: 'no-expected', input: withoutExpected }),
      '',
      JSON.stringify({ id: 7, input: vector('revoked').input }),
    ];
    child.stdin.end(`${rest.join('\n')}\n`);
    const code = await closed;
    clearTimeout(guard);
    children.delete(child);

    assert.equal(code, 0, stderr);
    assert.equal(stderr, '');
    assert.ok(stdout.endsWith('\n'));
    const answers = stdout
      .slice(0, -1)
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(answers.length, VECTORS.length + 5, 'one answer per non-blank line, none for blank lines');

    VECTORS.forEach((v, i) => {
      assert.deepEqual(
        answers[i],
        { id: v.id, verdict: v.expect.verdict, failure: v.expect.failure, claims: v.expect.claims },
        v.id,
      );
    });
    const [notJson, noId, objectId, noExpected, numericId] = answers.slice(VECTORS.length);
    assert.deepEqual(Object.keys(notJson ?? {}).sort(), ['error', 'id']);
    assert.equal(notJson?.id, null);
    assert.match(String(notJson?.error), /not JSON/);
    for (const answer of [noId, objectId]) {
      assert.deepEqual(Object.keys(answer ?? {}).sort(), ['error', 'id']);
      assert.equal(answer?.id, null);
      assert.match(String(answer?.error), /id/);
    }
    assert.deepEqual(Object.keys(noExpected ?? {}).sort(), ['error', 'id'], 'an input error carries no verdict');
    assert.equal(noExpected?.id, 'no-expected');
    assert.match(String(noExpected?.error), /expected/);
    assert.deepEqual(numericId, { id: 7, verdict: 'reject', failure: 'credential_revoked', claims: null });
  });

  it('--ledger adds the ten checks, in order, from which the verdict follows', async () => {
    const input = `${VECTORS.map((v) => JSON.stringify({ id: v.id, input: v.input })).join('\n')}\n`;
    const run = await openrail(['verify', '--ledger'], { input });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    const answers = run.stdout
      .trimEnd()
      .split('\n')
      .map(
        (line) => JSON.parse(line) as { id: string; verdict: string; failure: string | null; claims: unknown; ledger: Ledger },
      );
    assert.deepEqual(
      answers.map((a) => a.id),
      IDS,
    );
    for (const [i, answer] of answers.entries()) {
      const v = VECTORS[i] as ConformanceVector;
      assert.deepEqual(Object.keys(answer).sort(), ['claims', 'failure', 'id', 'ledger', 'verdict'], v.id);
      assert.equal(answer.ledger.length, 10, v.id);
      assert.deepEqual(
        answer.ledger.map((e) => e.check),
        [...CHECKS],
        v.id,
      );
      for (const entry of answer.ledger) {
        assert.ok(['passed', 'failed', 'not_applicable', 'not_performed'].includes(entry.status), `${v.id}: ${entry.status}`);
      }
      assert.deepEqual(deriveVerdict(answer.ledger), { verdict: answer.verdict, failure: answer.failure }, v.id);
      assert.equal(answer.verdict, v.expect.verdict, v.id);
      assert.equal(answer.failure, v.expect.failure, v.id);
      if (v.proves === 'all') {
        assert.ok(
          answer.ledger.every((e) => e.status === 'passed' || e.status === 'not_applicable'),
          v.id,
        );
      } else {
        const link = answer.ledger.find((e) => e.check === v.proves);
        assert.ok(link && (link.status === 'failed' || link.status === 'not_performed'), `${v.id}: ${JSON.stringify(link)}`);
        assert.equal(link.failure, v.expect.failure, `${v.id}: the broken link names the expected code`);
      }
    }
  });

  it('an unknown option exits 2 without reading a line', async () => {
    const run = await openrail(['verify', '--bogus'], {
      input: `${JSON.stringify({ id: 'valid', input: vector('valid').input })}\n`,
    });
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /openrail verify: unknown option --bogus/);
  });
});

describe('openrail conformance: verdicts', { concurrency: 2 }, () => {
  for (const level of [1, 2]) {
    it(`the reference verifier passes every vector at level ${level} (a set minted by the runner)`, async () => {
      const run = await openrail(['conformance', '--verifier', REFERENCE, ...(level === 2 ? ['--level', '2'] : [])]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      const report = readReport(run.stdout);
      assertEveryVectorOnce(report);
      assert.equal(report.results.filter((r) => r.status === 'pass').length, 16);
      for (const result of report.results) {
        const { verdict, failure } = vector(result.id).expect;
        assert.equal(result.detail, failure ? `${verdict} (${failure})` : verdict);
      }
      assert.deepEqual(report.notes, []);
      assert.equal(report.summary.passed, 16);
      assert.equal(report.summary.total, 16);
      assert.equal(report.summary.level, level);
      assert.equal(report.summary.schema, 'svc-open-rail-conformance/1');
      assert.equal(report.summary.setVersion, MINTED.set.setVersion);
      assert.notEqual(report.summary.digest, MINTED.set.digest, 'the runner mints its own set');
      assert.match(run.stdout, new RegExp(`^16/16 vectors passed at level ${level} `, 'm'));
    });
  }

  it('a verifier that accepts everything fails exactly the 15 vectors that are not valid', async () => {
    const run = await openrail(['conformance', '--verifier', `node ${FIXTURES}/accept-all.mjs`]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const report = readReport(run.stdout);
    assertEveryVectorOnce(report);
    assert.deepEqual(
      failedIds(report),
      IDS.filter((id) => id !== 'valid'),
    );
    assert.equal(failedIds(report).length, 15);
    for (const r of report.results.filter((x) => x.status === 'FAIL')) {
      assert.equal(r.detail, `expected ${vector(r.id).expect.verdict}, got accept`);
    }
    assert.deepEqual(report.notes, []);
    assert.equal(report.summary.passed, 1);
  });

  it('right verdicts with wrong failure codes pass level 1 and fail level 2 on every non-accept vector', async () => {
    const verifier = tsFixture('level2-drift.ts', 'codes');
    const [one, two] = await Promise.all([
      openrail(['conformance', '--vectors', setFile, '--verifier', verifier]),
      openrail(['conformance', '--vectors', setFile, '--verifier', verifier, '--level', '2']),
    ]);
    assert.equal(one.code, 0, one.stdout + one.stderr);
    const first = readReport(one.stdout);
    assertEveryVectorOnce(first);
    assert.deepEqual(failedIds(first), []);
    assert.equal(first.summary.level, 1);

    assert.equal(two.code, 1, two.stdout + two.stderr);
    const second = readReport(two.stdout);
    assertEveryVectorOnce(second);
    assert.deepEqual(
      failedIds(second),
      IDS.filter((id) => id !== 'valid'),
    );
    for (const r of second.results.filter((x) => x.status === 'FAIL')) {
      assert.equal(r.detail, `expected failure ${vector(r.id).expect.failure}, got "not_a_failure_code"`);
    }
    assert.equal(second.summary.level, 2);
    assert.equal(second.summary.passed, 1);
  });

  it('wrong claims on the valid vector fail level 2 there only', async () => {
    const run = await openrail(['conformance', '--verifier', tsFixture('level2-drift.ts', 'claims'), '--level', '2']);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const report = readReport(run.stdout);
    assertEveryVectorOnce(report);
    assert.deepEqual(failedIds(report), ['valid']);
    const valid = report.results.find((r) => r.id === 'valid');
    assert.match(valid?.detail ?? '', /^expected claims \{.*"given_name":"Ada".*\}, got \{.*"given_name":"Grace".*\}$/);
    assert.equal(report.summary.passed, 15);
  });
});

describe('openrail conformance: a verifier that skips one check fails exactly the vectors that prove it', {
  concurrency: 2,
}, () => {
  for (const check of CHECKS) {
    it(`skips ${check}`, async () => {
      const proving = VECTORS.filter((v) => v.proves === check).map((v) => v.id);
      assert.ok(proving.length > 0, `some vector proves ${check}`);
      const run = await openrail(['conformance', '--vectors', setFile, '--verifier', tsFixture('skip-check.ts', check)]);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      const report = readReport(run.stdout);
      assertEveryVectorOnce(report);
      assert.deepEqual(failedIds(report), proving);
      for (const r of report.results.filter((x) => x.status === 'FAIL')) {
        assert.match(r.detail, new RegExp(`^expected ${vector(r.id).expect.verdict}, got (accept|indeterminate|reject)$`));
      }
      assert.deepEqual(report.notes, []);
      assert.equal(report.summary.digest, MINTED.set.digest, 'the runner used the set from the file');
      assert.equal(report.summary.passed, 16 - proving.length);
    });
  }
});

describe('openrail conformance: schema /2, the HAIP and Digital Credentials API cases', { concurrency: 2 }, () => {
  const X5C_REJECTS = ['x5c-missing', 'x5c-untrusted-chain', 'x5c-certifies-another-key', 'x5c-expired-certificate'];
  let file: string;
  before(() => {
    file = join(dir, 'set-2.json');
    writeFileSync(file, MINTED_V2.body);
  });

  it('--schema 2: the reference verifier passes all 24 vectors of a set the runner mints, at level 2', async () => {
    const run = await openrail(['conformance', '--schema', '2', '--level', '2', '--verifier', REFERENCE]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const report = readReport(run.stdout);
    assert.deepEqual(
      report.results.map((r) => r.id),
      MINTED_V2.set.vectors.map((v) => v.id),
    );
    assert.deepEqual(failedIds(report), []);
    assert.equal(report.summary.schema, 'svc-open-rail-conformance/2');
    assert.notEqual(report.summary.digest, MINTED_V2.set.digest, 'the runner mints its own set');
    assert.match(run.stdout, /^24\/24 vectors passed at level 2 /m);
  });

  it('a verifier that ignores the trust anchors fails exactly the four x5c reject vectors of a /2 file', async () => {
    const run = await openrail(['conformance', '--vectors', file, '--verifier', tsFixture('ignore-anchors.ts')]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const report = readReport(run.stdout);
    assertEveryVectorOnce(report, MINTED_V2.set);
    assert.deepEqual(failedIds(report), X5C_REJECTS);
    assert.equal(report.summary.digest, MINTED_V2.set.digest);
  });

  it('a verifier that skips issuer_key fails the two vectors of /1 and the four x5c vectors that prove it', async () => {
    const run = await openrail(['conformance', '--vectors', file, '--verifier', tsFixture('skip-check.ts', 'issuer_key')]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.deepEqual(failedIds(readReport(run.stdout)), ['wrong-issuer-key', 'did-document-not-bound', ...X5C_REJECTS]);
  });

  it('openrail verify refuses an input whose trust anchor is not a certificate, and judges the next line', async () => {
    const [x5cValid, valid] = ['x5c-valid', 'valid'].map((id) => MINTED_V2.set.vectors.find((v) => v.id === id));
    const broken = { ...x5cValid?.input, trustAnchors: ['AAAA'] };
    const run = await openrail(['verify'], {
      input: `${JSON.stringify({ id: 'a', input: broken })}\n${JSON.stringify({ id: 'b', input: valid?.input })}\n`,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      run.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
      [
        { id: 'a', error: 'input.trustAnchors holds something that is not a DER certificate' },
        { id: 'b', verdict: 'accept', failure: null, claims: valid?.expect.claims },
      ],
    );
  });
});

describe('openrail conformance: verifiers that misbehave', { concurrency: 2 }, () => {
  it('a verifier that never answers: --timeout ends the run, every vector fails with no answer, the verifier is killed', async () => {
    const pidFile = newPidFile('silent-exec');
    // `exec`: the shell the runner spawns becomes the verifier, so the runner's SIGTERM reaches it.
    // (3 s rather than 1: time for the verifier to start and write its pid even on a loaded machine.)
    const run = await openrail(['conformance', '--verifier', `exec node ${FIXTURES}/silent.mjs ${pidFile}`, '--timeout', '3'], {
      onGuard: () => killSilent(pidFile),
    });
    assert.equal(run.guardFired, false, 'the runner ended on its own');
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const report = readReport(run.stdout);
    assertEveryVectorOnce(report);
    assert.deepEqual(failedIds(report), IDS);
    for (const r of report.results) assert.equal(r.detail, `no answer (expected ${vector(r.id).expect.verdict})`);
    assert.deepEqual(report.notes, ['the verifier did not answer every vector within 3 s']);
    assert.equal(report.summary.passed, 0);
    const pid = readPid(pidFile);
    assert.ok(pid, 'the verifier was started');
    assert.ok(await waitUntilGone(pid, 5_000), 'the verifier was killed');
  });

  it('a verifier that never answers, started through the shell without exec, is killed too and the runner ends', async () => {
    const pidFile = newPidFile('silent-shell');
    const run = await openrail(['conformance', '--verifier', `node ${FIXTURES}/silent.mjs ${pidFile}`, '--timeout', '1'], {
      onGuard: () => killSilent(pidFile),
    });
    const pid = readPid(pidFile);
    const killedByRunner = pid !== undefined && !run.guardFired && (await waitUntilGone(pid, 5_000));
    killSilent(pidFile);
    assert.equal(run.guardFired, false, `the runner ended on its own; stdout so far:\n${run.stdout}`);
    assert.equal(run.code, 1);
    assert.ok(killedByRunner, 'the verifier was killed');
  });

  it('a verifier that answers garbage, unknown ids, twice and with a bad verdict: notes, and FAIL for those vectors', async () => {
    const run = await openrail(['conformance', '--verifier', tsFixture('garbage.ts')]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const report = readReport(run.stdout);
    assertEveryVectorOnce(report);
    assert.deepEqual(failedIds(report), ['revoked', 'nonce-replay']);
    const detail = (id: string) => report.results.find((r) => r.id === id)?.detail;
    assert.equal(detail('revoked'), 'malformed answer: verdict "probably-fine"');
    assert.match(detail('nonce-replay') ?? '', /^malformed answer: verdict .*\(the verifier gave up\)$/);
    assert.equal(detail('valid'), 'accept', 'the first answer counts, the second is ignored');
    assert.deepEqual(report.notes, [
      'not JSON: this line is not JSON',
      'an answer for no vector: {"id":"no-such-vector","verdict":"accept"}',
      'an answer for no vector: ["not","an","object"]',
      'an answer for no vector: {"verdict":"accept"}',
      'a second answer for valid is ignored',
    ]);
    assert.equal(report.summary.passed, 14);
  });

  let exited: Promise<Run> | undefined;
  const exitImmediately = () => {
    exited ??= openrail(['conformance', '--verifier', `node ${FIXTURES}/exit-immediately.mjs`, '--timeout', '3']);
    return exited;
  };

  it('a verifier that exits at once without answering fails every vector with no answer', async () => {
    const run = await exitImmediately();
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const report = readReport(run.stdout);
    assertEveryVectorOnce(report);
    assert.deepEqual(failedIds(report), IDS);
    for (const r of report.results) assert.equal(r.detail, `no answer (expected ${vector(r.id).expect.verdict})`);
    assert.equal(report.summary.passed, 0);
  });

  it('a verifier that exits at once is noticed when it exits, not reported as a timeout', async () => {
    const report = readReport((await exitImmediately()).stdout);
    assert.deepEqual(
      report.notes.filter((n) => TIMEOUT_NOTE.test(n)),
      [],
    );
  });

  it('a verifier command that does not exist: the run cannot be made (exit 2), and says why', async () => {
    const run = await openrail(['conformance', '--verifier', 'openrail-no-such-verifier-7f3a', '--timeout', '20']);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.match(run.stderr, /openrail-no-such-verifier-7f3a: (command )?not found/);
    assert.match(run.stderr, /cannot start the verifier: the shell could not run/);
    assert.equal(run.stdout, '');
  });
});

describe('openrail conformance: options and the vector set', { concurrency: 2 }, () => {
  /** A verifier that, were it ever started, would leave its pid behind (and be killed at once). */
  const tell = (name: string) => {
    const pidFile = newPidFile(name);
    return { verifier: `exec node ${FIXTURES}/silent.mjs ${pidFile}`, started: () => existsSync(pidFile) };
  };
  const refused = (run: Run, message: RegExp) => {
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, message);
  };

  it('--vectors <file>: the set from the file is used, digest and all (reference verifier, level 2)', async () => {
    const run = await openrail(['conformance', '--vectors', setFile, '--verifier', REFERENCE, '--level', '2']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const report = readReport(run.stdout);
    assertEveryVectorOnce(report);
    assert.deepEqual(failedIds(report), []);
    assert.equal(report.summary.digest, MINTED.set.digest);
    assert.match(run.stdout, /^16\/16 vectors passed at level 2 /m);
  });

  it('a file whose vector was altered after minting does not match its digest: exit 2, the verifier is not started', async () => {
    const altered = JSON.parse(MINTED.body) as ConformanceSet;
    const revoked = altered.vectors.find((v) => v.id === 'revoked') as ConformanceVector;
    revoked.expect = { verdict: 'accept', failure: null, claims: null };
    const file = join(dir, 'altered.json');
    writeFileSync(file, JSON.stringify(altered));
    const { verifier, started } = tell('altered');
    refused(
      await openrail(['conformance', '--vectors', file, '--verifier', verifier, '--timeout', '1']),
      /cannot use the vector set: .*digest/,
    );
    assert.equal(started(), false);
  });

  it('a file of an unknown schema, and a /1 set relabelled /2: exit 2', async () => {
    const unknown = join(dir, 'other-schema.json');
    writeFileSync(unknown, JSON.stringify({ ...MINTED.set, schema: 'svc-open-rail-conformance/9' }));
    const relabelled = join(dir, 'relabelled.json');
    writeFileSync(relabelled, JSON.stringify({ ...MINTED.set, schema: 'svc-open-rail-conformance/2' }));
    const { verifier, started } = tell('other-schema');
    refused(
      await openrail(['conformance', '--vectors', unknown, '--verifier', verifier, '--timeout', '1']),
      /cannot use the vector set: not a svc-open-rail-conformance\/1, svc-open-rail-conformance\/2 or svc-open-rail-conformance\/3 set/,
    );
    refused(
      await openrail(['conformance', '--vectors', relabelled, '--verifier', verifier, '--timeout', '1']),
      /cannot use the vector set: the set does not hold the 24 vectors of svc-open-rail-conformance\/2/,
    );
    assert.equal(started(), false);
  });

  it('a file that is not JSON, and a file that does not exist: exit 2', async () => {
    const file = join(dir, 'not-json.json');
    writeFileSync(file, MINTED.body.slice(0, 200));
    const [notJson, missing] = await Promise.all([
      openrail(['conformance', '--vectors', file, '--verifier', REFERENCE]),
      openrail(['conformance', '--vectors', join(dir, 'no-such-set.json'), '--verifier', REFERENCE]),
    ]);
    refused(notJson, /cannot use the vector set: /);
    refused(missing, /cannot use the vector set: .*(ENOENT|no such file)/);
  });

  it('no --verifier, --level 3, a timeout that is not positive, an unknown option: exit 2 with the usage', async () => {
    const runs = await Promise.all([
      openrail(['conformance']),
      openrail(['conformance', '--verifier', REFERENCE, '--level', '3']),
      openrail(['conformance', '--verifier', REFERENCE, '--timeout', '0']),
      openrail(['conformance', '--verifier', REFERENCE, '--verbose']),
      openrail(['conformance', '--verifier', REFERENCE, '--schema', '4']),
    ]);
    for (const run of runs) refused(run, /^openrail conformance: [^\n]+\nusage: openrail conformance --verifier/);
    refused(runs[0] as Run, /--verifier is required/);
    refused(runs[1] as Run, /--level is 1 or 2/);
    refused(runs[4] as Run, /--schema is 1, 2 or 3/);
  });

  describe('--vectors <url>', () => {
    let server: Server;
    let base: string;
    const served = mint();
    const requests: { url: string; accept: string | undefined }[] = [];

    before(async () => {
      server = createServer((req, res) => {
        requests.push({ url: req.url ?? '', accept: req.headers.accept });
        if (req.url === '/conformance/vectors.json') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(served.body);
        } else {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        }
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('a set served over HTTP is fetched and used', async () => {
      const run = await openrail(['conformance', '--vectors', `${base}/conformance/vectors.json`, '--verifier', REFERENCE]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      const report = readReport(run.stdout);
      assertEveryVectorOnce(report, served.set);
      assert.deepEqual(failedIds(report), []);
      assert.equal(report.summary.digest, served.set.digest);
      assert.ok(requests.some((r) => r.url === '/conformance/vectors.json' && r.accept === 'application/json'));
    });

    it('a URL that answers 404: exit 2', async () => {
      const { verifier, started } = tell('url-404');
      refused(
        await openrail(['conformance', '--vectors', `${base}/nowhere.json`, '--verifier', verifier, '--timeout', '1']),
        /cannot use the vector set: .*answered 404/,
      );
      assert.equal(started(), false);
    });

    it('a URL nothing answers at: exit 2, naming the URL and why', async () => {
      const { verifier, started } = tell('url-refused');
      const closed = `http://127.0.0.1:${await freePort()}/vectors.json`;
      refused(
        await openrail(['conformance', '--vectors', closed, '--verifier', verifier, '--timeout', '1']),
        new RegExp(`cannot use the vector set: cannot reach ${closed.replace(/\./g, '\\.')}: ECONNREFUSED`),
      );
      assert.equal(started(), false);
    });
  });
});
