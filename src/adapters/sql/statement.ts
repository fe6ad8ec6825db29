import { CompiledQuery, PostgresAdapter } from 'kysely';
import type { Db } from './connect.ts';

/** PostgreSQL text of every Statement, by its prepared-statement name (see `preparedName`). */
const names = new Map<string, string>();

/**
 * One SQL statement of a hot path, written once (docs/architecture.md, "Hot paths"). Kysely's
 * builder compiles a query on every call, which costs more than SQLite takes to run most of ours;
 * a Statement is compiled by hand, once, when its module loads. On SQLite the driver keeps one
 * prepared statement per text; on PostgreSQL the pool prepares it once per connection under a
 * name (`preparedName`). It runs through Kysely all the same, so it joins the transaction of the
 * handle it is given.
 *
 * The text is portable SQL with `?` placeholders (rewritten to $1, $2 … for PostgreSQL); keep to
 * what both engines read alike (docs/decisions/0003-one-sql-adapter-two-engines.md).
 */
export class Statement<Row = Record<string, never>> {
  private readonly postgres: string;

  constructor(private readonly sqlite: string) {
    let n = 0;
    this.postgres = sqlite.replace(/\?/g, () => `$${++n}`);
    if (!names.has(this.postgres)) names.set(this.postgres, `openrail_${names.size + 1}`);
  }

  /** The statement as written, with `?` placeholders (write-batch.ts composes statements from it). */
  get text(): string {
    return this.sqlite;
  }

  private query(db: Db, params: readonly unknown[]) {
    const text = db.getExecutor().adapter instanceof PostgresAdapter ? this.postgres : this.sqlite;
    return db.executeQuery<Row>(CompiledQuery.raw(text, params as unknown[]));
  }

  async rows(db: Db, params: readonly unknown[]): Promise<Row[]> {
    return (await this.query(db, params)).rows;
  }

  async first(db: Db, params: readonly unknown[]): Promise<Row | undefined> {
    return (await this.query(db, params)).rows[0];
  }

  /** How many rows an INSERT, UPDATE or DELETE changed. */
  async changes(db: Db, params: readonly unknown[]): Promise<number> {
    return Number((await this.query(db, params)).numAffectedRows ?? 0);
  }
}

/** The name a Statement's PostgreSQL text is prepared under; undefined for any other text. */
export const preparedName = (text: string): string | undefined => names.get(text);
