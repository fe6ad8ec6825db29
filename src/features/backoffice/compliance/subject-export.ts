import { type Static, Type } from '@sinclair/typebox';
import type { Actor } from '../../../core/actor.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { ApprovalAction } from '../../../http/admin/approval-desk.ts';
import { AccountId } from '../../../http/schemas/common.ts';
import type { AccountData } from '../../account/account-data.ts';

/** An export is readable by the operator who asked for it this long after the approval, then cleared. */
export const EXPORT_RESULT_TTL_MS = 24 * 3_600_000;

export const SubjectExportParams = Type.Object({ accountId: AccountId }, { additionalProperties: false });
type Params = Static<typeof SubjectExportParams>;

/**
 * `subject.export` (docs/backoffice/approvals.md): a data-subject access request answered by the
 * operators, owners only, for any account the lookup finds. On approval it assembles what `POST /account/export` gives the holder
 * (`openrail-account-export/2`, features/account/account-data.ts), read in the approval's
 * transaction, as the approval's result: only the requester reads it, for 24 hours.
 */
export function subjectExportAction(deps: {
  /** Whether the data-subject lookup finds the account anywhere (compliance-service.ts). */
  held: (accountId: string) => Promise<boolean>;
  data: AccountData;
  /** The access request the export answers, answered in the approval's transaction. */
  answered: (approvalId: string, by: Actor, now: number) => Promise<void>;
}): ApprovalAction<Params> {
  return {
    name: 'subject.export',
    summary: "Export a holder account's data (memberships, coin ledgers and its records), as POST /account/export does.",
    params: SubjectExportParams,
    roles: ['owner'],
    tenantOf: () => null,
    privateResult: { ttlMs: EXPORT_RESULT_TTL_MS },
    async check(p) {
      // Any holder the service holds data of is answered, a member or not (wallet items,
      // deposits, a directory listing, sessions only).
      if (!(await deps.held(p.accountId))) {
        throw new ServiceError('unknown_account', 'The service holds nothing of this account.');
      }
    },
    async execute(_tx, p, context) {
      const exported = await deps.data.export(p.accountId);
      await deps.answered(context.approvalId, context.actor, context.now);
      return { export: exported };
    },
  };
}
