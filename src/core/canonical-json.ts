/**
 * RFC 8785 (JCS) for the values this service canonicalises (conformance sets, audit entries):
 * object members sorted by their keys' UTF-16 code units, no whitespace, strings and numbers as
 * ECMAScript's JSON writes them. Inputs are JSON values of our own making: strings, finite
 * numbers, booleans, null, arrays and plain objects.
 *
 * Written out by hand rather than through a re-keyed object: a JavaScript object lists
 * integer-like keys ("1", "10") before the others whatever order they are added in, which JCS
 * does not.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (v === undefined || typeof v === 'function') continue;
    members.push(`${JSON.stringify(key)}:${canonicalJson(v)}`);
  }
  return `{${members.join(',')}}`;
}
