import { type Expression, type SqlBool, sql } from 'kysely';
import type { ErasureCounts } from '../../ports/account-erasure-store.ts';
import type { InventoryRow, LookupKey, SubjectPlace } from '../../ports/compliance-store.ts';
import type { HolderRecords, LeftOut, LookupKeys, Placed } from '../../ports/holder-records.ts';
import { randomText } from '../crypto/random-pool.ts';
import type { Db } from './connect.ts';
import { type EraseRule, erasureNoteOf, HOLDER_DATA, type HolderColumn, type LookupMatch, lookupOf } from './holder-data.ts';
import { OWNER_OF, type Owner } from './owners.ts';

/**
 * The generic executor of the holder-data registry (holder-data.ts), one instance per owner: it
 * runs the registry's entries of the tables its owner owns (adapters/sql/owners.ts) and refuses,
 * when it is built, an entry of any other table. Its SQL takes each table's name from the entry,
 * so no table is written here; owners.ts, not this file, says whose they are.
 */

type Count = { n: number | string | bigint };
type Entry = { position: number; c: HolderColumn };
/** An account entry an erasure deletes or unlinks (the others it ends by hand, or keeps). */
type Erased = HolderColumn & { erase: Extract<EraseRule, { rule: 'delete' | 'unlink' }> };

const erased = (c: HolderColumn): c is Erased =>
  c.names === 'account' && (c.erase.rule === 'delete' || c.erase.rule === 'unlink');
const affected = (result: { numAffectedRows?: bigint }) => Number(result.numAffectedRows ?? 0n);

const LABELS: Record<LookupKey, string> = { account: 'holder', email: 'email', username: 'operator', member: 'partner' };

/** The text holds one of the strings (`replace` is the same function on both engines). */
const namedIn = (text: Expression<unknown>, strings: readonly string[]) =>
  sql<SqlBool>`(${sql.join(
    strings.map((v) => sql`replace(${text}, ${v}, '') <> ${text}`),
    sql` or `,
  )})`;

/** The condition of one registered column for one identifier. */
function holds(column: string, match: LookupMatch, key: LookupKey, value: string): Expression<SqlBool> {
  if (match === 'mentions') return namedIn(sql.ref(column), [value]);
  if (match === 'names') {
    // A JSON string that is the identifier (or its label): as JSON.stringify wrote it.
    if (key === 'email') return namedIn(sql`lower(${sql.ref(column)})`, [JSON.stringify(value.toLowerCase())]);
    return namedIn(sql.ref(column), [JSON.stringify(value), JSON.stringify(`${LABELS[key]}:${value}`)]);
  }
  if (key === 'email') return sql<SqlBool>`lower(${sql.ref(column)}) = ${value.toLowerCase()}`;
  if (match === 'label') return sql<SqlBool>`${sql.ref(column)} in (${value}, ${`${LABELS[key]}:${value}`})`;
  return sql<SqlBool>`${sql.ref(column)} = ${value}`;
}

/** The rows left out of a lookup (no condition where none of the table's are). */
function notLeftOut(table: string, leftOut: LeftOut | undefined): Expression<SqlBool> | undefined {
  const rule = leftOut?.[table];
  if (!rule || rule.ids.length === 0) return undefined;
  // coalesce: a row with no value there is never left out, and `not in` over null is unknown.
  return sql<SqlBool>`coalesce(${sql.ref(rule.column)}, '') not in (${sql.join(rule.ids)})`;
}

const camel = (column: string) => column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** A stored value as the export writes it: a time as RFC 3339, JSON text as JSON. */
function exported(column: string, value: unknown, json: readonly string[]): unknown {
  if (value === null || value === undefined) return null;
  if (column.endsWith('_at')) return new Date(Number(value)).toISOString();
  if (json.includes(column) && typeof value === 'string') return value === '' ? null : (JSON.parse(value) as unknown);
  return typeof value === 'bigint' ? Number(value) : value;
}

/** One owner's entries of the holder-data registry, run on its own tables only. */
export class SqlHolderRecords implements HolderRecords {
  readonly positions: readonly number[];
  private readonly entries: readonly Entry[];

  /** `columns` defaults to every registry entry of a table the owner owns; any other is refused. */
  constructor(
    private readonly db: Db,
    readonly owner: Owner,
    columns: readonly HolderColumn[] = HOLDER_DATA.filter((c) => OWNER_OF.get(c.table) === owner),
  ) {
    this.entries = columns
      .map((c) => {
        const of = OWNER_OF.get(c.table);
        if (of !== owner) {
          throw new Error(
            `the holder records of ${owner} cannot run ${c.table}.${c.column}: ${c.table} belongs to ${of ?? 'no one'}`,
          );
        }
        const position = HOLDER_DATA.indexOf(c);
        if (position < 0) throw new Error(`${c.table}.${c.column} is not an entry of the holder-data registry`);
        return { position, c };
      })
      .sort((a, b) => a.position - b.position);
    this.positions = this.entries.map((e) => e.position);
  }

  async tenantsOf(accountId: string): Promise<string[]> {
    const tenants = new Set<string>();
    for (const { c } of this.entries) {
      if (c.names !== 'account' || c.tenant === undefined) continue;
      const rows = await sql<{ tenant: string }>`select distinct ${sql.ref(c.tenant)} as tenant
        from ${sql.table(c.table)} where ${sql.ref(c.column)} = ${accountId}`.execute(this.db);
      for (const r of rows.rows) tenants.add(r.tenant);
    }
    return [...tenants];
  }

  async erase(accountId: string, now: number): Promise<Partial<ErasureCounts>> {
    const counts: Partial<ErasureCounts> = {};
    for (const { c } of this.entries) {
      if (!erased(c)) continue;
      const where = sql`where ${sql.ref(c.column)} = ${accountId}`;
      let query: ReturnType<typeof sql>;
      if (c.erase.rule === 'delete') {
        query = sql`delete from ${sql.table(c.table)} ${where}`;
      } else {
        const values: Record<string, string | number | null> = { ...(c.erase.set?.(now) ?? {}) };
        // One id for all of the account's rows, naming nobody.
        if (c.erase.pseudonym !== undefined) values[c.column] = `${c.erase.pseudonym}${randomText(16)}`;
        const assignments = Object.entries(values).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
        query = sql`update ${sql.table(c.table)} set ${sql.join(assignments)} ${where}`;
      }
      counts[c.erase.part] = (counts[c.erase.part] ?? 0) + affected(await query.execute(this.db));
    }
    return counts;
  }

  async remaining(accountId: string): Promise<Partial<ErasureCounts>> {
    const counts: Partial<ErasureCounts> = {};
    for (const { c } of this.entries) {
      if (!erased(c)) continue;
      const rows = await sql<Count>`select count(*) as n from ${sql.table(c.table)}
        where ${sql.ref(c.column)} = ${accountId}`.execute(this.db);
      counts[c.erase.part] = (counts[c.erase.part] ?? 0) + Number(rows.rows[0]?.n ?? 0);
    }
    return counts;
  }

  async lookup(keys: LookupKeys, leftOut?: LeftOut) {
    const places: Array<Placed<SubjectPlace>> = [];
    for (const { position, c } of this.entries) {
      const lookup = lookupOf(c);
      if (!lookup) continue;
      const conditions = lookup.by.flatMap((key) => (keys[key] ?? []).map((v) => holds(c.column, lookup.match, key, v)));
      if (conditions.length === 0) continue;
      const except = notLeftOut(c.table, leftOut);
      const found = await sql<Count>`select count(*) as n from ${sql.table(c.table)}
        where (${sql.join(conditions, sql` or `)})${except ? sql` and ${except}` : sql``}`.execute(this.db);
      const count = Number(found.rows[0]?.n ?? 0);
      if (count === 0) continue;
      places.push({
        position,
        value: {
          table: c.table,
          column: c.column,
          category: c.category,
          count,
          erasure: c.erase.rule,
          erasureNote: erasureNoteOf(c),
        },
      });
    }
    return places;
  }

  async inventory() {
    const rows: Array<Placed<InventoryRow>> = [];
    for (const { position, c } of this.entries) {
      const found = await sql<Count>`select count(*) as n from ${sql.table(c.table)}
        where ${sql.ref(c.column)} is not null and ${sql.ref(c.column)} <> ''`.execute(this.db);
      rows.push({
        position,
        value: {
          table: c.table,
          column: c.column,
          names: c.names,
          category: c.category,
          erasure: c.erase.rule,
          erasureNote: erasureNoteOf(c),
          exported: 'section' in c.export ? c.export.section : null,
          rows: Number(found.rows[0]?.n ?? 0),
        },
      });
    }
    return rows;
  }

  async records(accountId: string, limit: number) {
    const sections: Array<Placed<{ section: string; rows: Array<Record<string, unknown>> }>> = [];
    for (const { position, c } of this.entries) {
      if (c.names !== 'account' || !('columns' in c.export)) continue;
      const { section, columns, json = [] } = c.export;
      const rows = await sql<Record<string, unknown>>`select ${sql.join(columns.map((col) => sql.ref(col)))}
        from ${sql.table(c.table)} where ${sql.ref(c.column)} = ${accountId}
        order by ${sql.ref(columns[0] as string)} limit ${limit}`.execute(this.db);
      sections.push({
        position,
        value: {
          section,
          rows: rows.rows.map((row) => Object.fromEntries(columns.map((col) => [camel(col), exported(col, row[col], json)]))),
        },
      });
    }
    return sections;
  }
}

const classes = new Map<Owner, new (db: Db) => SqlHolderRecords>();

/**
 * The store class of one owner's holder records, the same class each time it is asked for: the
 * owning module names it in `owns` and publishes it as its `holderRecords`.
 */
export function holderRecordsOf(owner: Owner): new (db: Db) => SqlHolderRecords {
  let made = classes.get(owner);
  if (!made) {
    made = class extends SqlHolderRecords {
      constructor(db: Db) {
        super(db, owner);
      }
    };
    Object.defineProperty(made, 'name', { value: `SqlHolderRecords(${owner})` });
    classes.set(owner, made);
  }
  return made;
}

/**
 * Refuses parts that do not run the registry whole: an entry no part runs, or one two parts run.
 * The composition of the parts (Context.holderRecords) is checked with it when it is first asked for.
 */
export function coverRegistry<P extends Pick<HolderRecords, 'owner' | 'positions'>>(parts: readonly P[]): readonly P[] {
  const runBy = new Map<number, string>();
  for (const p of parts) {
    for (const position of p.positions) {
      const other = runBy.get(position);
      const c = HOLDER_DATA[position] as HolderColumn;
      if (other) throw new Error(`${c.table}.${c.column} is run by the holder records of ${other} and ${p.owner}`);
      runBy.set(position, p.owner);
    }
  }
  const missing = HOLDER_DATA.filter((_, i) => !runBy.has(i)).map((c) => `${c.table}.${c.column} (${OWNER_OF.get(c.table)})`);
  if (missing.length > 0) throw new Error(`no module runs the holder-data entries ${[...new Set(missing)].join(', ')}`);
  return parts;
}
