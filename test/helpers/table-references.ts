import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * The tables a source file names in SQL: the query builder's table arguments (`selectFrom('members
 * as m')`, `insertInto`, `updateTable`, `deleteFrom`, the joins) and SQL text in strings
 * (`from`, `join`, `into`, `update`, `delete from`, `table`). Comments are left out, so prose that
 * says "from members" names nothing. Used by test/table-owners.test.ts and `npm run shape`.
 */
export function tablesNamed(text: string, tables: readonly string[]): Set<string> {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const named = new Set<string>();
  const builder =
    /\b(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|crossJoin|mergeInto|replaceInto)\(\s*\[?\s*'([a-z_0-9]+)/g;
  for (const m of code.matchAll(builder)) named.add(m[1] as string);
  // Further tables of an array argument: selectFrom(['a', 'b']).
  for (const m of code.matchAll(/\b(?:selectFrom|deleteFrom)\(\s*\[([^\]]*)\]/g)) {
    for (const t of (m[1] as string).matchAll(/'([a-z_0-9]+)/g)) named.add(t[1] as string);
  }
  const strings = code.match(/`[^`]*`|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g) ?? [];
  for (const s of strings) {
    for (const m of s.matchAll(/\b(?:from|join|into|update|table)\s+"?([a-z_0-9]+)"?/gi))
      named.add((m[1] as string).toLowerCase());
  }
  return new Set([...named].filter((t) => tables.includes(t)));
}

/** Every non-test .ts file under `dir`, relative to `root`. */
export function sourceFiles(root: string, dir: string): string[] {
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((entry) => {
      const path = join(d, entry);
      if (statSync(path).isDirectory()) return walk(path);
      return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [relative(root, path)] : [];
    });
  return walk(join(root, dir));
}

/** The tables each adapter file of `adapters/sql` names, with the owning folder it sits in (undefined: the top). */
export function adapterTables(
  root: string,
  tables: readonly string[],
): Array<{ file: string; folder: string | undefined; tables: string[] }> {
  return sourceFiles(root, 'src/adapters/sql')
    .filter((file) => !/\/migrations\/|\/schema\.ts$|\/owners\.ts$/.test(file))
    .map((file) => ({
      file,
      folder: /^src\/adapters\/sql\/([^/]+)\//.exec(file)?.[1],
      tables: [...tablesNamed(readFileSync(join(root, file), 'utf8'), tables)].sort(),
    }));
}

/**
 * What an adapter may import from another owner's folder of `adapters/sql`: what that owner
 * publishes, its views (`sql-<owner>-views.ts`) and its parts of other owners' statements
 * (`<owner>-statements.ts`).
 */
export const PUBLISHED = /-(?:views|statements)\.ts$/;

/**
 * The imports of each adapter in a folder of `adapters/sql` (an owner's, or the backups') from
 * another owner's folder, with that folder. The infrastructure at the top is left out: the unit of
 * work is built with the kernel's audit trail and outbox.
 */
export function adapterImports(root: string): Array<{ file: string; target: string; owner: string }> {
  return sourceFiles(root, 'src/adapters/sql').flatMap((file) => {
    const folder = /^src\/adapters\/sql\/([^/]+)\//.exec(file)?.[1];
    if (folder === undefined || folder === 'migrations') return [];
    const text = readFileSync(join(root, file), 'utf8');
    return [...text.matchAll(/^(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm)].flatMap((m) => {
      const target = relative(root, join(root, dirname(file), m[1] as string));
      const owner = /^src\/adapters\/sql\/([^/]+)\//.exec(target)?.[1];
      return owner === undefined || owner === folder ? [] : [{ file, target, owner }];
    });
  });
}
