import { ServiceError } from '../errors.ts';
import { type ClaimSpec, RESERVED_CLAIMS } from './claim-spec.ts';

/**
 * A subject satisfies its type exactly (interface spec, rules 2-6; docs/credential-types.md):
 * every claim present with a value of its kind, nothing unknown, nothing reserved, nothing
 * coerced. A refusal names the claim and the rule.
 */
export const MAX_TEXT_LENGTH = 4096;
export const MAX_ARRAY_ELEMENTS = 100;
/** How deep an array(object) element may nest (the element itself is level 1). */
export const MAX_ELEMENT_DEPTH = 8;
/** The JSON size of one array(object) element, at most. */
export const MAX_ELEMENT_BYTES = 8192;
/** Keys that would read as SD-JWT digest carriers inside an object element. */
const CARRIER_KEYS = ['_sd', '...', '_sd_alg'];

const refuse = (key: string, rule: string) => new ServiceError('invalid_subject', `Claim "${key}": ${rule}.`);

export function checkSubject(claims: readonly ClaimSpec[], subject: Record<string, unknown>): void {
  const byKey = new Map(claims.map((c) => [c.key, c]));
  for (const key of Object.keys(subject)) {
    if (RESERVED_CLAIMS.includes(key)) {
      throw new ServiceError('reserved_claim', `Claim "${key}" is reserved by SD-JWT VC and cannot be set in a subject.`);
    }
    if (!byKey.has(key)) throw refuse(key, 'is not a claim of this credential type');
  }
  for (const claim of claims) {
    if (!Object.hasOwn(subject, claim.key)) throw refuse(claim.key, 'is required by this credential type and missing');
    checkValue(claim, subject[claim.key]);
  }
}

function checkValue(claim: ClaimSpec, value: unknown): void {
  const { key } = claim;
  switch (claim.kind) {
    case 'text':
      if (typeof value !== 'string') throw refuse(key, 'text must be a JSON string');
      if (value.length > MAX_TEXT_LENGTH) throw refuse(key, `text is at most ${MAX_TEXT_LENGTH} characters`);
      return;
    case 'date':
      if (typeof value !== 'string' || !isCalendarDate(value)) {
        throw refuse(key, 'date must be an ISO 8601 calendar date, YYYY-MM-DD');
      }
      return;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw refuse(key, 'number must be a JSON number, never a string');
      return;
    case 'money':
      if (typeof value !== 'number') throw refuse(key, 'money must be a JSON number of minor units, never a string');
      if (!Number.isSafeInteger(value)) throw refuse(key, 'money must be a whole number of minor units');
      return;
    case 'bool':
      if (typeof value !== 'boolean') throw refuse(key, 'bool must be a JSON boolean (true or false)');
      return;
    case 'enum':
      if (typeof value !== 'string' || !(claim.options ?? []).includes(value)) {
        const given = JSON.stringify(value) ?? String(value);
        const shown = given.length > 60 ? `${given.slice(0, 60)}…` : given;
        throw refuse(key, `enum value ${shown} must be one of the registered options: ${(claim.options ?? []).join(', ')}`);
      }
      return;
    case 'array(text)':
      checkArray(key, value);
      for (const [i, e] of (value as unknown[]).entries()) {
        if (typeof e !== 'string') throw refuse(key, `array(text) element ${i} must be a JSON string`);
        if (e.length > MAX_TEXT_LENGTH) throw refuse(key, `array(text) element ${i} is longer than ${MAX_TEXT_LENGTH}`);
      }
      return;
    case 'array(object)':
      checkArray(key, value);
      for (const [i, e] of (value as unknown[]).entries()) {
        if (!isPlainObject(e)) throw refuse(key, `array(object) element ${i} must be a JSON object`);
        const problem = elementProblem(e);
        if (problem) throw refuse(key, `array(object) element ${i} ${problem}`);
        if (Buffer.byteLength(JSON.stringify(e), 'utf8') > MAX_ELEMENT_BYTES) {
          throw refuse(key, `array(object) element ${i} is larger than ${MAX_ELEMENT_BYTES} bytes as JSON`);
        }
      }
      return;
  }
}

function checkArray(key: string, value: unknown): void {
  if (!Array.isArray(value)) throw refuse(key, 'must be a JSON array');
  if (value.length > MAX_ARRAY_ELEMENTS) throw refuse(key, `an array has at most ${MAX_ARRAY_ELEMENTS} elements`);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * What is wrong with an array(object) element, if anything: nesting deeper than the bound, or a
 * key SD-JWT reserves for digests anywhere inside. Walked with a stack of its own, so no element
 * can exhaust the call stack, and the depth is checked before JSON.stringify ever sees it.
 */
function elementProblem(element: Record<string, unknown>): string | undefined {
  const stack: Array<[unknown, number]> = [[element, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (!Array.isArray(value) && !isPlainObject(value)) continue;
    if (depth > MAX_ELEMENT_DEPTH) return `nests deeper than ${MAX_ELEMENT_DEPTH} levels`;
    if (Array.isArray(value)) {
      for (const inner of value) stack.push([inner, depth + 1]);
      continue;
    }
    for (const [k, inner] of Object.entries(value)) {
      if (CARRIER_KEYS.includes(k)) return `uses "${k}", which SD-JWT reserves`;
      stack.push([inner, depth + 1]);
    }
  }
  return undefined;
}

/** YYYY-MM-DD naming a day that exists (2024-02-29 yes, 2023-02-29 no). */
export function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC: the latter reads years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}
