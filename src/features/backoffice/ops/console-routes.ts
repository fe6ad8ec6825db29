import { Type } from '@sinclair/typebox';
import { iso, isoOrNull } from '../../../http/admin/kit.ts';
import { ROLE_MATRIX } from '../../../http/admin/role-matrix.ts';
import { defineRoute, internalOperatorRoute } from '../../../http/route.ts';
import { DateTimeView, DisplayText, Nullable, OPERATOR_ERRORS, refusal, Slug } from '../../../http/schemas/common.ts';
import type { IssuanceViews } from '../../../ports/issuance-views.ts';
import type { KeyStore } from '../../../ports/key-store.ts';
import type { OrgStore } from '../../../ports/org-store.ts';
import type { TenantService } from '../../tenants/tenant-service.ts';
import type { OrgService } from '../orgs/org-service.ts';
import type { AgentActivity } from './agents.ts';
import { actorOf, DOC } from './routes-common.ts';
import { ConsoleStateView } from './schemas.ts';

/** Status lists counted for the snapshot, at most (a tenant has one per 65,536 credentials). */
const LISTS_COUNTED = 200;

export interface StateDeps {
  agents: AgentActivity;
  tenants: TenantService;
  orgs: Pick<OrgStore, 'domains'> & Pick<OrgService, 'counts'>;
  /** The status lists and their revoked entries. */
  issuance: IssuanceViews;
  keys: KeyStore;
  clockNow: () => number;
}

/** `GET /api/state` (docs/operations.md, "The console's snapshot"): one organisation as its console shows it. */
export function consoleStateRoutes(deps: StateDeps) {
  return [
    defineRoute({
      ...internalOperatorRoute(`Console operation; ${DOC} states its shape.`),
      method: 'GET',
      path: '/api/state',
      roles: ROLE_MATRIX.orgsManage,
      scope: { tenantIn: 'query' },
      summary: 'An organisation’s snapshot: its status, what it issued and revoked, its members, its keys and its domain.',
      querystring: Type.Object({ tenant: Slug }, { additionalProperties: false }),
      responses: {
        200: { description: 'The snapshot.', schema: ConsoleStateView },
        ...OPERATOR_ERRORS,
        404: refusal('unknown_tenant'),
      },
      handler: async (request) => {
        const tenant = await deps.tenants.get(request.query.tenant);
        const [status, counts, lists, published, signing, domains, agents] = await Promise.all([
          deps.tenants.status(tenant.slug),
          deps.orgs.counts([tenant.slug]),
          deps.issuance.statusLists(tenant.slug, { limit: LISTS_COUNTED }),
          deps.keys.publishedKeys(tenant.slug),
          Promise.all([deps.keys.activeKey(tenant.slug, 'issuer'), deps.keys.activeKey(tenant.slug, 'verifier')]),
          deps.orgs.domains([tenant.slug]),
          deps.agents.agents(tenant.slug),
        ]);
        const count = counts.get(tenant.slug) ?? { types: 0, credentials: 0, members: 0 };
        const domain = domains.get(tenant.slug);
        return {
          tenant: tenant.slug,
          name: tenant.displayName ?? tenant.name,
          did: deps.tenants.didOf(tenant.slug),
          status: { status: status.status, since: isoOrNull(status.since), reason: status.reason },
          counts: { ...count, revoked: lists.reduce((n, l) => n + l.revoked, 0), statusLists: lists.length },
          keys: published.map((k) => ({ kid: k.kid, purpose: k.purpose, signing: signing.some((s) => s?.kid === k.kid) })),
          domain: domain ? { domain: domain.domain, state: domain.state } : null,
          agents: agents.map((a) => ({ agent: a.agent, lastSeenAt: iso(a.lastSeenAt), beats: a.beats })),
          checkedAt: iso(deps.clockNow()),
        };
      },
    }),
  ];
}

const Token = (max: number) => Type.String({ pattern: `^[a-z0-9][a-z0-9._-]{0,${max - 1}}$` });

/** `POST /api/agent/activity` (docs/operations.md, "Automation agents"): an agent's heartbeat or action. */
export function agentRoutes(agents: AgentActivity) {
  return [
    defineRoute({
      ...internalOperatorRoute(`Console operation; ${DOC} states its shape.`),
      method: 'POST',
      path: '/api/agent/activity',
      // An organisation's operators, or an integration token it gave the `agent` scope.
      roles: ['owner', 'ops', 'tenant-admin'],
      scope: { tenantIn: 'body' },
      scopes: ['agent'],
      summary: 'An automation agent’s heartbeat, or an action it took, recorded and shown in the activity feed.',
      body: Type.Object(
        {
          tenant: Slug,
          agent: Token(64),
          kind: Type.Union([Type.Literal('heartbeat'), Type.Literal('action')]),
          action: Type.Optional(Token(64)),
          ref: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._:/+-]{1,200}$', description: 'What it acted on: an id.' })),
          summary: Type.Optional(DisplayText(300)),
        },
        { additionalProperties: false },
      ),
      responses: {
        200: {
          description: 'Recorded: an action’s audit entry, or null for a heartbeat.',
          schema: Type.Object({
            ok: Type.Literal(true),
            auditSeq: Nullable(Type.Integer()),
            agent: Type.String(),
            at: DateTimeView,
          }),
        },
        ...OPERATOR_ERRORS,
        404: refusal('unknown_tenant'),
        409: refusal('conflict', 'the tenant already has 100 agents reporting.'),
      },
      handler: async (request) => agents.report(request.body, actorOf(request)),
    }),
  ];
}
