import { createInterface } from 'node:readline';
import { isObject } from '../core/jose/es256.ts';
import { readVerificationInput } from '../core/verifier/input.ts';
import { verifyPresentation } from '../core/verifier/verify-presentation.ts';

/**
 * `openrail verify`: the reference verifier on the conformance line protocol
 * (docs/conformance.md). One `{id, input}` per stdin line, one `{id, verdict, failure, claims}`
 * per stdout line, in order, until EOF. `--ledger` adds the ten checks to each answer.
 */
export async function verifyLines(args: string[]): Promise<void> {
  const withLedger = args.includes('--ledger');
  const unknown = args.filter((a) => a !== '--ledger');
  if (unknown.length > 0) {
    process.stderr.write(`openrail verify: unknown option ${unknown[0]}\n`);
    process.exitCode = 2;
    return;
  }
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    process.stdout.write(`${JSON.stringify(answer(line, withLedger))}\n`);
  }
}

function answer(line: string, withLedger: boolean): Record<string, unknown> {
  let request: unknown;
  try {
    request = JSON.parse(line);
  } catch {
    return { id: null, error: 'the line is not JSON' };
  }
  const id = isObject(request) && (typeof request.id === 'string' || typeof request.id === 'number') ? request.id : null;
  if (id === null) return { id, error: 'the line has no string id' };
  const input = readVerificationInput(isObject(request) ? request.input : undefined);
  if (typeof input === 'string') return { id, error: input };
  const result = verifyPresentation(input);
  const out: Record<string, unknown> = { id, verdict: result.verdict, failure: result.failure, claims: result.claims };
  if (withLedger) out.ledger = result.ledger;
  return out;
}
