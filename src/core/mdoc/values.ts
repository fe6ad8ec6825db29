import { DateOnly } from '@animo-id/mdoc';

/** Deeper element values than this are cut off (shown as null): a claim of a type nests at most 8 levels. */
const MAX_DEPTH = 16;

/**
 * An element value as JSON shows it in an outcome (docs/mdoc.md, "Claims in outcomes"): a
 * `full-date` as `YYYY-MM-DD`, a `tdate` as its ISO 8601 instant, a byte string as base64url, a map
 * as an object (its keys as text), integers beyond JSON's safe range as decimal text.
 */
export function jsonOfElement(value: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH) return null;
  if (value === undefined || value === null) return null;
  if (value instanceof DateOnly) return value.toISOString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64url');
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map((v) => jsonOfElement(v, depth + 1));
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value)
      Object.defineProperty(out, String(k), {
        value: jsonOfElement(v, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, { value: jsonOfElement(v, depth + 1), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}
