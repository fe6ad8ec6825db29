import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { mintFreshSet } from '../adapters/crypto/conformance-mint.ts';
import { judgeAnswer, type VerifierAnswer } from '../core/conformance/judge.ts';
import {
  CONFORMANCE_SCHEMA,
  CONFORMANCE_SCHEMA_V2,
  CONFORMANCE_SCHEMA_V3,
  type ConformanceSchema,
  type ConformanceSet,
  SCHEMAS,
  vectorsDigest,
} from '../core/conformance/vector-set.ts';
import type { VectorInputV3 } from '../core/conformance/vectors-v3.ts';
import { isObject } from '../core/jose/es256.ts';
import { VERB_USAGE } from './usage.ts';

const MAX_TIMEOUT_S = 3600;

const USAGE = VERB_USAGE.conformance;

/** A set of any schema: the vectors of /1 and /2 are among those /3 may carry. */
type AnySet = ConformanceSet<VectorInputV3>;

/** `--schema` to the schema it names. */
const SCHEMA_OPTION: Record<string, ConformanceSchema> = {
  '1': CONFORMANCE_SCHEMA,
  '2': CONFORMANCE_SCHEMA_V2,
  '3': CONFORMANCE_SCHEMA_V3,
};

/**
 * `openrail conformance`: runs a verifier, in any language, against the conformance set
 * (docs/conformance.md). Exit 0 when every vector passes, 1 when any fails, 2 when the run
 * cannot be made (bad options, unreadable or corrupt set, verifier cannot start).
 */
export async function runConformance(args: string[]): Promise<void> {
  let options: { verifier?: string; vectors?: string; schema: ConformanceSchema; level: 1 | 2; timeoutMs: number };
  try {
    const { values } = parseArgs({
      args,
      options: {
        verifier: { type: 'string' },
        vectors: { type: 'string' },
        schema: { type: 'string', default: '1' },
        level: { type: 'string', default: '1' },
        timeout: { type: 'string', default: '30' },
      },
    });
    const level = values.level === '2' ? 2 : values.level === '1' ? 1 : undefined;
    const schema = Object.hasOwn(SCHEMA_OPTION, values.schema) ? SCHEMA_OPTION[values.schema] : undefined;
    const timeout = Number(values.timeout);
    if (!values.verifier || !level || !schema || !(timeout > 0 && timeout <= MAX_TIMEOUT_S)) {
      throw new Error(
        `--verifier is required; --level is 1 or 2; --schema is 1, 2 or 3; --timeout is 1 to ${MAX_TIMEOUT_S} seconds`,
      );
    }
    options = { verifier: values.verifier, vectors: values.vectors, schema, level, timeoutMs: timeout * 1000 };
  } catch (e) {
    return stop(`${(e as Error).message}\n${USAGE}`);
  }

  let set: AnySet;
  try {
    set = options.vectors
      ? await loadSet(options.vectors)
      : (await mintFreshSet(options.schema, Math.floor(Date.now() / 1000))).set;
  } catch (e) {
    return stop(`cannot use the vector set: ${(e as Error).message}`);
  }

  const answers = await askVerifier(options.verifier as string, set, options.timeoutMs);
  if (answers.startError) return stop(`cannot start the verifier: ${answers.startError}`);
  let failed = 0;
  const out: string[] = [];
  for (const vector of set.vectors) {
    const problem = judgeAnswer(vector, answers.byId.get(vector.id), options.level);
    if (problem) failed++;
    out.push(`${problem ? 'FAIL' : 'pass'}  ${vector.id.padEnd(28)} ${problem ?? describe(vector.expect)}`);
  }
  for (const note of answers.notes) out.push(`note  ${note}`);
  out.push(
    `${set.vectors.length - failed}/${set.vectors.length} vectors passed at level ${options.level} (${set.schema} ${set.setVersion}, ${set.digest})`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}

function stop(message: string): void {
  process.stderr.write(`openrail conformance: ${message}\n`);
  process.exitCode = 2;
}

const describe = (expect: { verdict: string; failure: string | null }) =>
  expect.failure ? `${expect.verdict} (${expect.failure})` : expect.verdict;

/** A published set, checked against its schema and its own digest before it is trusted. */
async function loadSet(source: string): Promise<AnySet> {
  let text: string;
  if (/^https?:\/\//.test(source)) {
    const response = await fetch(source, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(30_000) }).catch(
      (err: Error & { cause?: { code?: string; message?: string } }) => {
        // undici says only "fetch failed"; the reason is its cause (ECONNREFUSED, ENOTFOUND, a timeout).
        const why =
          err.name === 'TimeoutError' ? 'no answer within 30 s' : (err.cause?.code ?? err.cause?.message ?? err.message);
        throw new Error(`cannot reach ${source}: ${why}`);
      },
    );
    if (!response.ok) throw new Error(`${source} answered ${response.status}`);
    text = await response.text();
  } else {
    text = await readFile(source, 'utf8');
  }
  const set = JSON.parse(text) as unknown;
  const schema = isObject(set) && Object.hasOwn(SCHEMAS, set.schema as string) ? (set.schema as ConformanceSchema) : undefined;
  if (!isObject(set) || !schema || !Array.isArray(set.vectors)) {
    throw new Error(`not a ${CONFORMANCE_SCHEMA}, ${CONFORMANCE_SCHEMA_V2} or ${CONFORMANCE_SCHEMA_V3} set`);
  }
  const typed = set as unknown as AnySet;
  if (vectorsDigest(typed.vectors) !== typed.digest) throw new Error('the vectors do not match the set digest');
  const ids = typed.vectors.map((v) => (isObject(v) ? v.id : undefined));
  const wanted = SCHEMAS[schema].ids;
  if (ids.length !== wanted.length || !wanted.every((id) => ids.includes(id))) {
    throw new Error(`the set does not hold the ${wanted.length} vectors of ${schema}`);
  }
  return typed;
}

interface Answers {
  byId: Map<string, VerifierAnswer>;
  notes: string[];
  startError?: string;
}

/** The shell's exit status for a command it cannot find or run (POSIX). */
const SHELL_CANNOT_RUN = new Set([126, 127]);
/** How long a verifier that exited may still take to flush what it wrote. */
const EXIT_GRACE_MS = 1000;

/**
 * Spawns the verifier once, writes every vector, closes its stdin, and collects one answer per
 * line until it has them all, its output ends, it exits, or the time is up. The verifier runs in
 * a process group of its own, so stopping it also stops what its shell started.
 */
function askVerifier(command: string, set: AnySet, timeoutMs: number): Promise<Answers> {
  return new Promise((resolve) => {
    const byId = new Map<string, VerifierAnswer>();
    const notes: string[] = [];
    const wanted = new Set(set.vectors.map((v) => v.id));
    const child = spawn(command, { shell: true, detached: true, stdio: ['pipe', 'pipe', 'inherit'] });
    let done = false;
    const stop = (signal: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // The group is gone already.
      }
    };
    const finish = (extra: Partial<Answers> = {}) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(grace);
      stop('SIGTERM');
      setTimeout(() => stop('SIGKILL'), EXIT_GRACE_MS).unref();
      child.stdout.destroy();
      resolve({ byId, notes, ...extra });
    };
    const timer = setTimeout(() => {
      notes.push(`the verifier did not answer every vector within ${timeoutMs / 1000} s`);
      finish();
    }, timeoutMs);
    child.on('error', (e) => finish({ startError: e.message }));
    // Output ending and the process exiting arrive in either order; both are awaited briefly so
    // that a shell that could not run the command is told apart from a verifier that said nothing.
    let exited = false;
    let outputEnded = false;
    let grace: NodeJS.Timeout | undefined;
    const settleSoon = () => {
      grace ??= setTimeout(() => finish(), EXIT_GRACE_MS);
    };
    child.on('exit', (code) => {
      exited = true;
      if (byId.size === 0 && code !== null && SHELL_CANNOT_RUN.has(code)) {
        return finish({ startError: `the shell could not run "${command}" (exit ${code})` });
      }
      if (outputEnded) finish();
      else settleSoon();
    });
    child.stdin.on('error', () => undefined); // a verifier that exits early closes the pipe
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (line.trim() === '') return;
      let answer: unknown;
      try {
        answer = JSON.parse(line);
      } catch {
        notes.push(`not JSON: ${line.slice(0, 80)}`);
        return;
      }
      const id = isObject(answer) ? answer.id : undefined;
      if (typeof id !== 'string' || !wanted.has(id)) {
        notes.push(`an answer for no vector: ${line.slice(0, 80)}`);
        return;
      }
      if (byId.has(id)) notes.push(`a second answer for ${id} is ignored`);
      else byId.set(id, answer as VerifierAnswer);
      if (byId.size === wanted.size) finish();
    });
    // The end of its output means no more answers can come; the exit status may still say why.
    lines.on('close', () => {
      outputEnded = true;
      if (exited) finish();
      else settleSoon();
    });
    for (const vector of set.vectors) child.stdin.write(`${JSON.stringify({ id: vector.id, input: vector.input })}\n`);
    child.stdin.end();
  });
}
