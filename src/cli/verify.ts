import { createInterface } from 'node:readline';
import { ChainVerifier } from '../adapters/crypto/x509.ts';
import { isObject, nestsWithin } from '../core/jose/es256.ts';
import { verifyMdocPresentation } from '../core/mdoc/verify-mdoc.ts';
import { readVerifierInput } from '../core/verifier/input.ts';
import type { ChainCheck } from '../core/verifier/issuer-certificate.ts';
import { verifyWithCertificates } from '../core/verifier/verify-presentation.ts';
import { VERB_USAGE } from './usage.ts';

/** A line longer than this is answered with an error: no conformance input comes near it. */
const MAX_LINE = 4 * 1024 * 1024;
/** The input wraps a DID document and the expectations around the presentation: a few levels more than a JWS. */
const MAX_LINE_DEPTH = 48;

/**
 * `openrail verify`: the reference verifier on the conformance line protocol
 * (docs/conformance.md). One `{id, input}` per stdin line, one `{id, verdict, failure, claims}`
 * per stdout line, in order, until EOF. An input with `format: "mso_mdoc"` (schema /3) is an ISO
 * mdoc presentation, judged by the mdoc ledger, its claims by namespace; any other is an SD-JWT
 * VC. `--ledger` adds the ten checks to each answer. Every line gets an answer: a line the
 * verifier cannot judge gets `{id, error}`, and the next line is read as usual.
 */
export async function verifyLines(args: string[]): Promise<void> {
  const withLedger = args.includes('--ledger');
  const unknown = args.filter((a) => a !== '--ledger');
  if (unknown.length > 0) {
    process.stderr.write(`openrail verify: unknown option ${unknown[0]}\n${VERB_USAGE.verify}\n`);
    process.exitCode = 2;
    return;
  }
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    process.stdout.write(`${await safeAnswer(line, withLedger)}\n`);
  }
}

/** Anchor sets seen so far (a run uses one or two), each parsed once; at most a few are kept. */
const verifiers = new Map<string, ChainVerifier>();
const MAX_ANCHOR_SETS = 8;

/** The chain verifier of an anchor set; throws when an anchor is not a DER certificate. */
function verifierFor(anchors: readonly string[]): ChainVerifier {
  const key = anchors.join(',');
  let verifier = verifiers.get(key);
  if (!verifier) {
    if (verifiers.size >= MAX_ANCHOR_SETS) verifiers.clear();
    verifier = new ChainVerifier(anchors);
    verifiers.set(key, verifier);
  }
  return verifier;
}

/**
 * The x5c check of schema /2 inputs and the x5chain check of mdoc inputs, by the deployment's own
 * chain verifier (adapters/crypto/x509.ts).
 */
const checkChain: ChainCheck = (chain, anchors, now) => verifierFor(anchors).keyOf(chain, new Date(now * 1000));

async function safeAnswer(line: string, withLedger: boolean): Promise<string> {
  try {
    return JSON.stringify(await answer(line, withLedger));
  } catch {
    // Nothing expected throws; if something does, this line is lost, never the run.
    return JSON.stringify({ id: idOf(line), error: 'the verifier could not judge this line' });
  }
}

/** The line's id, read without trusting the rest of it. */
function idOf(line: string): string | number | null {
  const m = /"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,15})/.exec(line.slice(0, 1000));
  try {
    return m?.[1] ? (JSON.parse(m[1]) as string | number) : null;
  } catch {
    return null;
  }
}

async function answer(line: string, withLedger: boolean): Promise<Record<string, unknown>> {
  if (line.length > MAX_LINE) return { id: idOf(line), error: `the line is longer than ${MAX_LINE} characters` };
  if (!nestsWithin(line, MAX_LINE_DEPTH)) return { id: idOf(line), error: `the line nests deeper than ${MAX_LINE_DEPTH} levels` };
  let request: unknown;
  try {
    request = JSON.parse(line);
  } catch {
    return { id: null, error: 'the line is not JSON' };
  }
  const id = isObject(request) && (typeof request.id === 'string' || typeof request.id === 'number') ? request.id : null;
  if (id === null) return { id, error: 'the line has no string id' };
  const read = readVerifierInput(isObject(request) ? request.input : undefined);
  if (typeof read === 'string') return { id, error: read };
  try {
    if (read.input.trustAnchors) verifierFor(read.input.trustAnchors);
  } catch {
    return { id, error: 'input.trustAnchors holds something that is not a DER certificate' };
  }
  const result =
    read.format === 'mso_mdoc'
      ? await verifyMdocPresentation(read.input, checkChain)
      : await verifyWithCertificates(read.input, checkChain);
  const out: Record<string, unknown> = { id, verdict: result.verdict, failure: result.failure, claims: result.claims };
  if (withLedger) out.ledger = result.ledger;
  return out;
}
