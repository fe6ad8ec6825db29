import type { Kysely, Migration } from 'kysely';

/**
 * The holder directory (docs/directory.md): one opt-in listing per account, in one community
 * (a tenant whose programme the holder belongs to), and its contacts as keyed hashes only.
 */
export const directory: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('directory_listings')
      .addColumn('account_id', 'text', (c) => c.primaryKey())
      .addColumn('community', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text', (c) => c.notNull())
      // NFKC, lower-cased: what name search compares.
      .addColumn('name_key', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('directory_by_community')
      .on('directory_listings')
      .columns(['community', 'name_key', 'account_id'])
      .execute();
    await db.schema.createIndex('directory_by_name').on('directory_listings').columns(['name_key', 'account_id']).execute();

    await db.schema
      .createTable('directory_contacts')
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('entry', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('pepper_id', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('directory_contacts_pk', ['account_id', 'entry'])
      .execute();
    await db.schema.createIndex('directory_contacts_by_entry').on('directory_contacts').columns(['entry', 'pepper_id']).execute();
  },
};
