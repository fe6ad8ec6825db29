import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migratedDatabase, testDatabases } from '../../../test/helpers/databases.ts';
import { type Mailbox, startSmtp } from '../../../test/helpers/smtp.ts';
import { systemClock } from '../../core/clock.ts';
import { noMeter } from '../../ports/meter.ts';
import { systemIds } from '../crypto/ids.ts';
import { SqlMailOutcomes } from '../sql/kernel/sql-mail-outcomes.ts';
import { RecordedMailer } from './recorded-mailer.ts';
import { SmtpMailer } from './smtp-mailer.ts';

const ADDRESS = 'someone@example.test';

for (const factory of testDatabases()) {
  describe(`the recorded mailer, against a real SMTP server (${factory.name})`, () => {
    const on = migratedDatabase(factory);
    let box: Mailbox;
    let mailer: RecordedMailer;
    before(async () => {
      box = await startSmtp();
      mailer = new RecordedMailer(
        new SmtpMailer(box.url, 'rail@example.test'),
        'smtp',
        new SqlMailOutcomes(on.db),
        noMeter,
        systemClock,
        systemIds,
      );
    });
    after(async () => {
      await box.close();
    });

    test('records a message the server took, and one it refused by its reply code, never the address', async () => {
      await mailer.send({ to: ADDRESS, subject: 'Hello', text: 'A body' });
      box.refusing = true;
      await assert.rejects(mailer.send({ to: ADDRESS, subject: 'Hello', text: 'A body' }));
      box.refusing = false;
      const rows = await on.db.selectFrom('mail_outcomes').selectAll().orderBy('at').execute();
      assert.deepEqual(
        rows.map((r) => [r.transport, Number(r.ok), r.failure]),
        [
          ['smtp', 1, null],
          ['smtp', 0, '550'],
        ],
      );
      assert.doesNotMatch(JSON.stringify(rows), /example\.test|Hello|A body/);
      assert.equal(await new SqlMailOutcomes(on.db).prune(Date.now() + 1), 2);
    });
  });
}
