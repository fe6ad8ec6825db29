/**
 * RFC 8785 (JCS) for the values this service canonicalises (conformance sets, audit entries):
 * objects with sorted keys, ECMAScript JSON otherwise. Inputs are JSON values of our own making:
 * strings, finite numbers, booleans, null, arrays and plain objects.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}
