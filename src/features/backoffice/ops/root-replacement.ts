import { type Static, Type } from '@sinclair/typebox';
import { ServiceError } from '../../../core/errors.ts';
import type { ApprovalAction } from '../../../http/admin/approval-desk.ts';
import { type PreparedRoot, ROOT_TAKEOVER_MIN_MS, type RootReplacement } from '../../../ports/key-certifier.ts';

export const REPLACE_ROOT_ACTION = 'ca.replace';
const DAY_MS = 24 * 60 * 60 * 1000;
/** Relying parties that pinned the root get this long to add the new one, unless the operators chose otherwise. */
export const DEFAULT_TAKEOVER_DAYS = 30;

export const ReplaceRootParams = Type.Object(
  {
    takeOverInDays: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 365,
        description: `Days from the approval until the new root certifies keys (default ${DEFAULT_TAKEOVER_DAYS}); it is published beside the old one from the approval on. 0: as soon as every process has it (three minutes).`,
      }),
    ),
  },
  { additionalProperties: false },
);
type Params = Static<typeof ReplaceRootParams>;

/** The replacement, or the refusal a deployment certified by the operator's own chain gets. */
function replaceable(roots: RootReplacement | null): RootReplacement {
  if (roots) return roots;
  throw new ServiceError(
    'external_authority',
    'The signing keys are certified by the chain in OPENRAIL_CA_CHAIN_FILE: replace it by changing that file.',
  );
}

/**
 * `ca.replace` (docs/keys.md, "Replacing the platform root"), four eyes, owners only: the new root
 * is made where the deployment keeps keys before the approval's transaction opens; on approval it
 * is stored to take over after `takeOverInDays` (never sooner than every process can publish it),
 * published beside the old one at once, and `ca.replaced` is audited. Once it has taken over, the
 * certificate job certifies every key again under it and then destroys the old root's key.
 */
export function replaceRootAction(roots: RootReplacement | null): ApprovalAction<Params, PreparedRoot> {
  return {
    name: REPLACE_ROOT_ACTION,
    summary:
      'Replace the platform root: a new root, made where the deployment keeps keys, is published beside the old one and takes over after the days given; every key is then certified again under it.',
    params: ReplaceRootParams,
    roles: ['owner'],
    tenantOf: () => null,
    check: () => replaceable(roots).check(),
    prepare: () => replaceable(roots).prepare(),
    discard: (root) => replaceable(roots).discard(root),
    async execute({ audit }, p, context) {
      const prepared = context.prepared;
      if (!prepared) throw new Error('ca.replace runs with the root its prepare step made');
      const days = p.takeOverInDays ?? DEFAULT_TAKEOVER_DAYS;
      const activeFrom = context.now + Math.max(days * DAY_MS, ROOT_TAKEOVER_MIN_MS);
      const { authorityKeyId, previousAuthorityKeyId } = await replaceable(roots).schedule(prepared, activeFrom);
      const takesOverAt = new Date(activeFrom).toISOString();
      await audit.append({
        actor: context.actor,
        action: 'ca.replaced',
        tenant: null,
        target: authorityKeyId,
        detail: { previousAuthorityKeyId, takesOverAt, approvalId: context.approvalId },
      });
      return { authorityKeyId, previousAuthorityKeyId, takesOverAt };
    },
  };
}
