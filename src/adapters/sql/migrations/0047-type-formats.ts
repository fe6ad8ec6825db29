import type { Kysely, Migration } from 'kysely';

/**
 * A credential type names its formats (docs/mdoc.md, "Types with formats"): `formats`, a JSON array
 * (every type before this one is SD-JWT VC alone), and `mdoc`, the JSON doctype and elements of a
 * type offered as ISO mdoc. A presentation transaction names the format it asks for.
 */
export const typeFormats: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('credential_types')
      .addColumn('formats', 'text', (c) => c.notNull().defaultTo('["dc+sd-jwt"]'))
      .execute();
    await db.schema.alterTable('credential_types').addColumn('mdoc', 'text').execute();
    await db.schema
      .alterTable('presentation_transactions')
      .addColumn('format', 'text', (c) => c.notNull().defaultTo('dc+sd-jwt'))
      .execute();
  },
};
