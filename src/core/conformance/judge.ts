import { canonicalJson } from '../canonical-json.ts';
import { isObject } from '../jose/es256.ts';
import type { ConformanceVector } from './vectors.ts';

export type VerifierAnswer = Record<string, unknown>;

/**
 * Why an answer fails a vector, or undefined when it passes. Level 1 compares the verdict;
 * level 2 also the failure code of a non-accept vector and the claims of an accept vector.
 */
export function judgeAnswer(
  vector: ConformanceVector<unknown>,
  answer: VerifierAnswer | undefined,
  level: 1 | 2,
): string | undefined {
  const { expect } = vector;
  if (!answer) return `no answer (expected ${expect.verdict})`;
  if (!['accept', 'reject', 'indeterminate'].includes(answer.verdict as string)) {
    return `malformed answer: verdict ${JSON.stringify(answer.verdict)}${answer.error ? ` (${String(answer.error)})` : ''}`;
  }
  if (answer.verdict !== expect.verdict) return `expected ${expect.verdict}, got ${String(answer.verdict)}`;
  if (level === 1) return undefined;
  if (expect.verdict !== 'accept' && answer.failure !== expect.failure) {
    return `expected failure ${expect.failure}, got ${JSON.stringify(answer.failure ?? null)}`;
  }
  if (
    expect.verdict === 'accept' &&
    (!isObject(answer.claims) || canonicalJson(answer.claims) !== canonicalJson(expect.claims))
  ) {
    return `expected claims ${canonicalJson(expect.claims)}, got ${JSON.stringify(answer.claims ?? null)}`;
  }
  return undefined;
}
