import type { Kysely, Migration } from 'kysely';

/**
 * Automation agents (docs/operations.md, "Automation agents"): the latest heartbeat of each agent
 * of a tenant — its name, when it last reported, how many times, and who reported for it (the
 * operator or integration token, as the audit log names it). An agent's actions are audited and
 * evented, not kept here.
 */
export const agents: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('agent_heartbeats')
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('agent', 'text', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('beats', 'bigint', (c) => c.notNull())
      .addColumn('reported_by', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('agent_heartbeats_pk', ['tenant', 'agent'])
      .execute();
  },
};
