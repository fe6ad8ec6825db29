/**
 * A string no store keeps as it was sent: a NUL (PostgreSQL's text and jsonb refuse it), or half
 * of a UTF-16 surrogate pair (not Unicode text at all; UTF-8 cannot carry it, so it would be
 * stored as something else than was sent).
 */
export const illFormed = (s: string): boolean => s.includes('\u0000') || !s.isWellFormed();

/** What is wrong with a decoded JSON value, and where: a string (or property name) that is ill formed, or nesting too deep. */
export type Malformation = { problem: 'text' | 'depth'; at: string };

/**
 * The first malformation of a decoded JSON value, walked without recursion so that no nesting can
 * exhaust the stack; undefined when every key and string is well formed within `maxDepth` levels.
 * `at` names the place as a JSON pointer from `root`, property names cut to 64 characters.
 */
export function malformation(value: unknown, maxDepth: number, root = ''): Malformation | undefined {
  if (typeof value === 'string') return illFormed(value) ? { problem: 'text', at: root } : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  const stack: { value: object; at: string; depth: number }[] = [{ value, at: root, depth: 1 }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.depth > maxDepth) return { problem: 'depth', at: next.at };
    // A place is named only where it is needed: a nested value, or the first malformation.
    const here = next.at;
    const at = (key: string) => `${here}/${key.slice(0, 64)}`;
    for (const [key, child] of Object.entries(next.value)) {
      if (illFormed(key)) return { problem: 'text', at: next.at };
      if (typeof child === 'string') {
        if (illFormed(child)) return { problem: 'text', at: at(key) };
      } else if (child !== null && typeof child === 'object') {
        stack.push({ value: child, at: at(key), depth: next.depth + 1 });
      }
    }
  }
  return undefined;
}
