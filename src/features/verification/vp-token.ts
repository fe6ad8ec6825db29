import { isObject } from '../../core/jose/es256.ts';

/** The DCQL credential query id of every hosted request: one credential per transaction. */
export const QUERY_ID = 'credential';

/**
 * The one presentation in a `vp_token`, in every shape wallets send (standards-notes §9):
 * OID4VP 1.0's object of arrays (`{"credential": ["<sd-jwt>"]}`), drafts 22–24's object of
 * strings, and older drafts' bare string. Undefined when it holds anything else, or more than
 * one presentation (the query does not set `multiple`).
 */
export function presentationOf(vpToken: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(vpToken);
  } catch {
    // Not JSON: a bare compact presentation.
    return vpToken.includes('~') ? vpToken : undefined;
  }
  if (typeof parsed === 'string') return parsed;
  if (!isObject(parsed)) return undefined;
  const keys = Object.keys(parsed);
  if (keys.length !== 1 || keys[0] !== QUERY_ID) return undefined;
  const value = parsed[QUERY_ID];
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') return value[0];
  return undefined;
}
