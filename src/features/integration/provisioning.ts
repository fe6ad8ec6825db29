import { type Static, Type } from '@sinclair/typebox';
import { actorLabel } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import { RATE_CLASS_NAMES, SCOPE_NAMES } from '../../core/integration-scopes.ts';
import type { Random } from '../../core/random.ts';
import type { ApprovalAction, ApprovalView } from '../../http/admin/approval-desk.ts';
import type { ListParams } from '../../http/admin/kit.ts';
import { type OperatorPrincipal, operatorActor } from '../../http/auth/operator-bearer.ts';
import { DisplayText, Slug } from '../../http/schemas/common.ts';
import type { IntegrationTokenStore } from '../../ports/integration-token-store.ts';
import type { ApprovalService } from '../approvals/desk.ts';
import { INTEGRATION_MINT, INTEGRATION_WRITE } from './roles.ts';
import { mintToken, tokenView } from './token-service.ts';

/** The desk's action a provisioning request is (docs/integration.md, "The provisioning ceremony"). */
export const MINT_ACTION = 'token.mint';

/** A provisioning request not decided within this time expires. */
export const PROVISIONING_TTL_MS = 7 * 86_400_000;

const MintParamsSchema = Type.Object(
  {
    tenant: Slug,
    label: DisplayText(80),
    scopes: Type.Array(Type.Union(SCOPE_NAMES.map((s) => Type.Literal(s))), {
      minItems: 1,
      maxItems: SCOPE_NAMES.length,
      uniqueItems: true,
    }),
    rateClass: Type.Union(RATE_CLASS_NAMES.map((c) => Type.Literal(c))),
  },
  { additionalProperties: false },
);

export type MintParams = Static<typeof MintParamsSchema>;

export interface OpenRequest extends MintParams {
  reason: string;
}

const unknownRequest = () => new ServiceError('unknown_provisioning_request');

/**
 * The desk's refusals in the words of the provisioning routes, which promised their own codes
 * (`unknown_provisioning_request`, `provisioning_state`) before requests were approvals.
 */
async function asProvisioning<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'unknown_approval') throw unknownRequest();
    if (err instanceof ServiceError && err.code === 'approval_state') {
      throw new ServiceError('provisioning_state');
    }
    throw err;
  }
}

/** A provisioning request as its routes answer it: the approval, in the request's fields. */
function requestView(a: ApprovalView) {
  const p = a.params as unknown as MintParams;
  const tokenId = a.result?.tokenId;
  return {
    id: a.approvalId,
    tenant: p.tenant,
    label: p.label,
    scopes: p.scopes,
    rateClass: p.rateClass,
    reason: a.reason ?? '',
    state: a.state,
    requestedBy: a.requestedBy,
    createdAt: a.requestedAt,
    expiresAt: a.expiresAt,
    decidedBy: a.decidedBy,
    decidedAt: a.decidedAt,
    note: a.note,
    tokenId: typeof tokenId === 'string' ? tokenId : null,
  };
}

export interface ProvisioningDeps {
  desk: ApprovalService;
  tokens: IntegrationTokenStore;
  clock: Clock;
  ids: Ids;
  random: Random;
  tenantExists: (slug: string) => Promise<boolean>;
}

/**
 * The provisioning ceremony (docs/integration.md): a request for a tenant-scoped integration token
 * is an approval of the desk's `token.mint` action, filed by an operator and approved by another
 * owner (four eyes, the desk's rules: never the one who asked nor one linked to it). Approving
 * mints the token in the approval's transaction and reveals its secret to the approver once;
 * only its hash is kept, and the approval's result names the token.
 */
export class Provisioning {
  constructor(private readonly deps: ProvisioningDeps) {}

  /** The `token.mint` action, for the integration module to register with the desk. */
  mintAction(): ApprovalAction<MintParams> {
    return {
      name: MINT_ACTION,
      summary: 'Mint a tenant-scoped integration token (a provisioning request); its secret is shown to the approver once.',
      params: MintParamsSchema,
      roles: INTEGRATION_WRITE,
      approvedBy: { roles: INTEGRATION_MINT, platformOnly: true },
      idKind: 'provisioning',
      ttlMs: PROVISIONING_TTL_MS,
      tenantOf: (p) => p.tenant,
      check: async (p) => {
        if (!(await this.deps.tenantExists(p.tenant)))
          throw new ServiceError('unknown_tenant', `No tenant has the slug "${p.tenant}".`);
      },
      execute: async (tx, p, context) => {
        const { record, secret } = mintToken(
          this.deps.random,
          this.deps.ids.mint('integrationToken'),
          {
            tenant: p.tenant,
            label: p.label,
            scopes: p.scopes,
            rateClass: p.rateClass,
            requestId: context.approvalId,
            createdBy: actorLabel(context.actor),
            partnerId: null,
          },
          this.deps.clock.now(),
        );
        await this.deps.tokens.createToken(record);
        await tx.audit.append({
          actor: context.actor,
          action: 'integration_token.minted',
          tenant: record.tenant,
          target: record.id,
          detail: {
            requestId: context.approvalId,
            requestedBy: context.requestedBy,
            scopes: record.scopes,
            rateClass: record.rateClass,
          },
        });
        context.reveal({ secret });
        return { tokenId: record.id };
      },
    };
  }

  async open(by: OperatorPrincipal, input: OpenRequest) {
    const { reason, ...params } = input;
    const filed = await this.deps.desk.request(
      MINT_ACTION,
      { ...params, scopes: [...new Set(params.scopes)].sort() },
      by,
      reason,
    );
    return { ok: true as const, auditSeq: filed.auditSeq, request: requestView(filed.approval) };
  }

  /** Newest first, on the back office's list convention (the desk's list of `token.mint` approvals). */
  async requests(by: OperatorPrincipal, p: ListParams) {
    const shown = await this.deps.desk.list(by, p, { action: MINT_ACTION });
    return { requests: shown.approvals.map(requestView), nextCursor: shown.nextCursor };
  }

  async request(by: OperatorPrincipal, id: string) {
    const found = await asProvisioning(() => this.deps.desk.get(by, id));
    if (found.action !== MINT_ACTION) throw unknownRequest();
    return requestView(found);
  }

  /** Another operator rejects; the one who asked withdraws (docs/integration.md). */
  async reject(by: OperatorPrincipal, id: string, note: string | null) {
    const found = await this.request(by, id);
    const mine = actorLabel(operatorActor(by)) === found.requestedBy;
    const decided = await asProvisioning(() =>
      mine ? this.deps.desk.withdraw(by, id, note) : this.deps.desk.reject(by, id, note),
    );
    return { ok: true as const, auditSeq: decided.auditSeq, request: requestView(decided.approval) };
  }

  /** Approves the request: the token is minted in the approval's transaction, its secret in this answer only. */
  async approve(by: OperatorPrincipal, id: string) {
    await this.request(by, id);
    const approved = await asProvisioning(() => this.deps.desk.approve(by, id, null));
    const tokenId = approved.approval.result?.tokenId;
    const secret = approved.revealed?.secret;
    const record = typeof tokenId === 'string' ? await this.deps.tokens.token(tokenId, null) : undefined;
    if (!record || typeof secret !== 'string') throw new Error(`the approval ${id} minted no token`);
    return { ok: true as const, auditSeq: approved.auditSeq, token: { ...tokenView(record), secret } };
  }
}
