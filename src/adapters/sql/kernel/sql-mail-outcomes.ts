import type { MailOutcome, MailOutcomeLog } from '../../../ports/mail-outcomes.ts';
import type { Db } from '../connect.ts';
import { bool, rowCodec } from '../row-codec.ts';
import type { MailOutcomesTable } from '../schema.ts';

const outcomes = rowCodec<MailOutcome, MailOutcomesTable>()('id at transport failure', { ok: bool });

export class SqlMailOutcomes implements MailOutcomeLog {
  constructor(private readonly db: Db) {}

  async record(outcome: MailOutcome): Promise<void> {
    await this.db.insertInto('mail_outcomes').values(outcomes.row(outcome)).execute();
  }

  async prune(before: number): Promise<number> {
    const result = await this.db.deleteFrom('mail_outcomes').where('at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
