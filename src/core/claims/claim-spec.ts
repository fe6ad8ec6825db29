import { isDisplayText } from '../display-text.ts';
import { ServiceError } from '../errors.ts';

/**
 * Claim specifications of a credential type (interface spec, "Credential type and claim
 * specifications"; docs/credential-types.md). A spec is `key` or `key:<kind>`; anything else is
 * refused, never dropped or guessed.
 */
export type ClaimKind = 'text' | 'date' | 'number' | 'money' | 'bool' | 'enum' | 'array(text)' | 'array(object)';

export interface ClaimSpec {
  key: string;
  kind: ClaimKind;
  /** enum only: the registered options, in registration order. */
  options?: string[];
}

/** Claim names the SD-JWT VC envelope owns (interface spec, rule 6). */
export const RESERVED_CLAIMS: readonly string[] = [
  'iss',
  'sub',
  'aud',
  'exp',
  'nbf',
  'iat',
  'jti',
  'cnf',
  'vct',
  'status',
  '_sd',
  '_sd_alg',
];

export const MAX_CLAIMS = 100;
const KEY = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const OPTION = /^[^|()\s](?:[^|()]{0,62}[^|()\s])?$/;
const SIMPLE_KINDS: readonly ClaimKind[] = ['text', 'date', 'number', 'money', 'bool', 'array(text)', 'array(object)'];

const refuse = (spec: string, why: string) =>
  new ServiceError('invalid_claim_spec', `Claim spec ${JSON.stringify(spec)} is not recognised: ${why}.`);

export function parseClaimSpec(spec: string): ClaimSpec {
  const colon = spec.indexOf(':');
  const key = colon === -1 ? spec : spec.slice(0, colon);
  if (RESERVED_CLAIMS.includes(key)) {
    throw new ServiceError('reserved_claim', `Claim key "${key}" is reserved by SD-JWT VC and cannot be used in a type.`);
  }
  if (!KEY.test(key)) {
    throw refuse(spec, 'a key is 1 to 64 letters, digits, "_" or "-", starting with a letter or "_"');
  }
  if (colon === -1) return { key, kind: 'text' };
  const kind = spec.slice(colon + 1);
  if ((SIMPLE_KINDS as string[]).includes(kind)) return { key, kind: kind as ClaimKind };
  const enumBody = /^enum\((.*)\)$/s.exec(kind)?.[1];
  if (enumBody === undefined) {
    throw refuse(spec, `the kind after ":" must be one of ${SIMPLE_KINDS.join(', ')} or enum(a|b|c)`);
  }
  const options = enumBody.split('|');
  const bad = options.find((o) => !OPTION.test(o));
  if (bad !== undefined) {
    throw refuse(spec, `enum option ${JSON.stringify(bad)} must be 1 to 64 characters without "|", "(", ")" or edge spaces`);
  }
  // Wallets show the options to people: no control, format or private-use characters.
  const hidden = options.find((o) => !isDisplayText(o));
  if (hidden !== undefined) throw refuse(spec, `enum option ${JSON.stringify(hidden)} holds a character names may not`);
  const dup = options.find((o, i) => options.indexOf(o) !== i);
  if (dup !== undefined) throw refuse(spec, `enum option "${dup}" is listed twice`);
  return { key, kind: 'enum', options };
}

/** Every spec of a registration, or the first refusal: a type is registered whole or not at all. */
export function parseClaimSpecs(specs: readonly string[]): ClaimSpec[] {
  if (specs.length === 0) throw new ServiceError('invalid_claim_spec', 'A credential type needs at least one claim.');
  if (specs.length > MAX_CLAIMS) {
    throw new ServiceError('invalid_claim_spec', `A credential type has at most ${MAX_CLAIMS} claims.`);
  }
  const parsed = specs.map(parseClaimSpec);
  const seen = new Set<string>();
  for (const c of parsed) {
    if (seen.has(c.key)) throw new ServiceError('invalid_claim_spec', `Claim key "${c.key}" is declared twice.`);
    seen.add(c.key);
  }
  return parsed;
}

/** The spec string a parsed claim came from, in its canonical form (`key` for text). */
export function formatClaimSpec(c: ClaimSpec): string {
  if (c.kind === 'text') return c.key;
  if (c.kind === 'enum') return `${c.key}:enum(${(c.options ?? []).join('|')})`;
  return `${c.key}:${c.kind}`;
}
