import type { Insertable, Selectable, Updateable } from 'kysely';

/**
 * One declaration of how a store's record sits in its table, used both to write the row and to
 * read it back, so an entity's columns are listed once (docs/architecture.md, "Stores").
 *
 *     rowCodec<OfferRecord, OffersTable>()('id tenant typeId … collectedAt', { txCode: json, subject: json })
 *
 * The string names the fields stored as they are; the object gives the others a conversion:
 * `json` (JSON text), `bool` (0/1), `num` (a number whose column may be null or come back as
 * text), or one of the store's own. A field's column is its name in snake_case unless `col` names
 * another. Every conversion keeps a null a null. The typechecker holds the declaration to its
 * record and table: a field left out or named twice, a column that does not exist, a plain field
 * whose type or nullability is not its column's, or a conversion to the wrong column type, each
 * fails the build, naming the field.
 */
export interface Conv<V, Stored> {
  readonly column?: string;
  /** Phantom: what the column holds, for the declaration's check. */
  readonly stored?: Stored;
  write(value: V): unknown;
  read(stored: unknown): V;
}

export const num: Conv<number, number> = {
  write: (v) => v,
  read: (v) => (v === null || v === undefined ? (null as unknown as number) : Number(v)),
};
export const bool: Conv<boolean, number> = {
  write: (v) => (v === null ? null : v ? 1 : 0),
  read: (v) => (v === null ? (null as unknown as boolean) : Number(v) === 1),
};
// biome-ignore lint/suspicious/noExplicitAny: JSON text reads back as whatever the field declares.
export const json: Conv<any, string> = {
  write: (v) => (v === null || v === undefined ? null : JSON.stringify(v)),
  read: (v) => (v === null ? null : JSON.parse(v as string)),
};
/** No conversion: what a plain field has, and what `col` takes for a renamed one. */
// biome-ignore lint/suspicious/noExplicitAny: passes any field through unchanged.
export const asIs: Conv<any, unknown> = { write: (v) => v, read: (v) => v };
/** A field stored under a column whose name is not the field's own in snake_case. */
export const col = <N extends string, V, S>(column: N, conv: Conv<V, S>): Conv<V, S> & { readonly column: N } => ({
  ...conv,
  column,
});

type Snake<S extends string> = S extends `${infer H}${infer T}`
  ? `${H extends Lowercase<H> ? H : `_${Lowercase<H>}`}${Snake<T>}`
  : S;
const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
type Words<S extends string> = S extends `${infer W} ${infer Rest}` ? W | Words<Rest> : S;

type Nullable<X> = null extends X ? true : false;
type ColumnName<K, C> = C extends { readonly column: infer N extends string } ? N : Snake<K & string>;
type StoredOf<C> = C extends Conv<unknown, infer S> ? S : never;
/** A plain field fits a column of its type (or wider text: the record may narrow it to names) and nullability. */
type PlainMisfits<R, Row, W> = {
  [K in W & keyof R]: Snake<K & string> extends keyof Row
    ? [R[K]] extends [Row[Snake<K & string>]]
      ? Nullable<R[K]> extends Nullable<Row[Snake<K & string>]>
        ? never
        : K
      : K
    : K;
}[W & keyof R];
type ConvMisfits<Row, C> = {
  [K in keyof C]: ColumnName<K, C[K]> extends keyof Row
    ? NonNullable<Row[ColumnName<K, C[K]>]> extends StoredOf<C[K]>
      ? never
      : K
    : K;
}[keyof C];
/** Every way a declaration can fail to fit its record and table, by field name. */
type Misfits<R, T, P extends string, C> =
  | Exclude<keyof R & string, Words<P> | keyof C>
  | Exclude<Words<P>, keyof R>
  | (Words<P> & keyof C)
  | PlainMisfits<R, Selectable<T>, Words<P>>
  | ConvMisfits<Selectable<T>, C>;
type Converted<R> = { [K in keyof R]?: Conv<R[K], unknown> };

export interface RowCodec<R, T> {
  /** The row that stores `record`: pass it to an insert. */
  row(record: R): Insertable<T>;
  /** The columns that hold the fields `change` gives a value (undefined: left as it is), for an update. */
  patch(change: Partial<R>): Updateable<T>;
  /** The record a selected row holds. */
  record(row: Selectable<T>): R;
  /** The columns the record occupies, in field order. */
  readonly columns: readonly string[];
}

/** Written in two steps so that the record and table are named and the fields inferred. */
export const rowCodec =
  <R, T>() =>
  <const P extends string, C extends Converted<R>>(
    plain: P,
    converted: C &
      ([Misfits<R, T, P, C>] extends [never]
        ? unknown
        : Record<Misfits<R, T, P, C> & string, 'does not fit its record or table'>),
  ): RowCodec<R, T> => {
    const convs: Array<[string, Conv<unknown, unknown>]> = [
      ...plain.split(' ').map((field) => [field, asIs] as [string, Conv<unknown, unknown>]),
      ...(Object.entries(converted) as Array<[string, Conv<unknown, unknown>]>),
    ];
    const entries = convs.map(([field, conv]) => [field, conv.column ?? snake(field), conv] as const);
    return {
      row(record) {
        const out: Record<string, unknown> = {};
        for (const [field, column, conv] of entries) out[column] = conv.write((record as Record<string, unknown>)[field]);
        return out as Insertable<T>;
      },
      patch(change) {
        const given = change as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const [field, column, conv] of entries) if (given[field] !== undefined) out[column] = conv.write(given[field]);
        return out as Updateable<T>;
      },
      record(row) {
        const out: Record<string, unknown> = {};
        for (const [field, column, conv] of entries) out[field] = conv.read((row as Record<string, unknown>)[column]);
        return out as R;
      },
      columns: entries.map(([, column]) => column),
    };
  };
