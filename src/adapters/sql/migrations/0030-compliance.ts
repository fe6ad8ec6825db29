import type { Kysely, Migration } from 'kysely';

/**
 * Data-subject requests the operators answer (docs/backoffice/compliance.md): access requests
 * (`access`) and erasure requests (`erasure`), one row each, with the subject as the requester named
 * it — an account id in `account_id` (unlinked when the account is erased, holder-data.ts), or an
 * e-mail address or operator username in `identifier` — when it was received and when it is due,
 * who filed and decided it, and what answered it: the four-eyes export's approval, a signed
 * negative response, a refusal's ground, or the erasure's receipt.
 *
 * Incidents: the breach register, one row per incident with its state, severity, times and the
 * scope its affected data is computed from (JSON: a window and the tenants, keys or types).
 *
 * Type purposes: which purpose of the record of processing a credential type is issued for (one
 * per type), bound by an operator.
 *
 * Retention: a rule per category of kept data (`retention_rules`), and the purge runs that
 * delete what is past its rule (`purge_runs`: the cutoffs fixed when the run was asked for, the
 * counts so far, the categories finished), so a run killed half-way resumes where it stopped.
 *
 * Attestations: an operator's statement that it read and follows a text of the deployment's
 * (`statement_id`, `version`), once per operator, statement and version, with its audit entry.
 */
export const compliance: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('compliance_requests')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('subject_kind', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text')
      .addColumn('identifier', 'text')
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('identity_check', 'text')
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .addColumn('due_at', 'bigint', (c) => c.notNull())
      .addColumn('filed_by', 'text', (c) => c.notNull())
      .addColumn('filed_at', 'bigint', (c) => c.notNull())
      .addColumn('decided_by', 'text')
      .addColumn('decided_at', 'bigint')
      .addColumn('outcome', 'text')
      .addColumn('ground', 'text')
      .addColumn('note', 'text')
      .addColumn('approval_id', 'text')
      .addColumn('receipt_id', 'text')
      .addColumn('statement', 'text')
      .execute();
    await db.schema
      .createIndex('compliance_requests_by_kind')
      .on('compliance_requests')
      .columns(['kind', 'received_at', 'id'])
      .execute();
    await db.schema.createIndex('compliance_requests_by_account').on('compliance_requests').column('account_id').execute();
    await db.schema.createIndex('compliance_requests_by_approval').on('compliance_requests').column('approval_id').execute();

    await db.schema
      .createTable('attestations')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('tenant', 'text')
      .addColumn('statement_id', 'text', (c) => c.notNull())
      .addColumn('version', 'text', (c) => c.notNull())
      .addColumn('note', 'text')
      .addColumn('attested_at', 'bigint', (c) => c.notNull())
      .addColumn('audit_seq', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('attestations_once', ['username', 'statement_id', 'version'])
      .execute();
    await db.schema
      .createTable('incidents')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('severity', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('detected_at', 'bigint', (c) => c.notNull())
      .addColumn('opened_at', 'bigint', (c) => c.notNull())
      .addColumn('opened_by', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('assessed_at', 'bigint')
      .addColumn('notified_at', 'bigint')
      .addColumn('closed_at', 'bigint')
      .execute();
    await db.schema.createIndex('incidents_by_detection').on('incidents').columns(['detected_at', 'id']).execute();

    await db.schema
      .createTable('type_purposes')
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('type_id', 'text', (c) => c.notNull())
      .addColumn('purpose_id', 'text', (c) => c.notNull())
      .addColumn('bound_at', 'bigint', (c) => c.notNull())
      .addColumn('bound_by', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('type_purposes_pk', ['tenant', 'type_id'])
      .execute();

    await db.schema
      .createTable('retention_rules')
      .addColumn('category', 'text', (c) => c.primaryKey().notNull())
      .addColumn('keep_days', 'integer', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_by', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('purge_runs')
      .addColumn('id', 'text', (c) => c.primaryKey().notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('requested_by', 'text', (c) => c.notNull())
      .addColumn('requested_at', 'bigint', (c) => c.notNull())
      .addColumn('cutoffs', 'text', (c) => c.notNull())
      .addColumn('counts', 'text', (c) => c.notNull())
      .addColumn('finished', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .addColumn('audit_seq', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('purge_runs_by_time').on('purge_runs').columns(['requested_at', 'id']).execute();

    await db.schema.createIndex('attestations_by_time').on('attestations').columns(['attested_at', 'id']).execute();
  },
};
