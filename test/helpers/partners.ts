/**
 * A partner whose team can sign in, written straight to the database for suites that need a
 * partner session but are not about onboarding (the route table, the refusal walk). The partner
 * journey itself goes through the intake, the pipeline and a mailed code (src/features/partners).
 */
import { randomBytes } from 'node:crypto';
import { systemRandom } from '../../src/adapters/crypto/random-pool.ts';
import type { Db } from '../../src/adapters/sql/connect.ts';
import { SqlPartnerStore } from '../../src/adapters/sql/partners/sql-partner-store.ts';
import type { IntegrationScope, RateClass } from '../../src/core/integration-scopes.ts';
import type { TeamRole } from '../../src/core/partner-pipeline.ts';
import { hashToken, newToken } from '../../src/core/secrets.ts';
import { PARTNER_SESSION_PREFIX } from '../../src/http/auth/operator-bearer.ts';

const id = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;

export async function livePartnerSession(
  db: Db,
  options: { tenant?: string; scopes?: IntegrationScope[]; rateClass?: RateClass; role?: TeamRole } = {},
): Promise<{ bearer: Record<string, string>; applicationId: string; memberId: string }> {
  const store = new SqlPartnerStore(db);
  const now = Date.now();
  const applicationId = id('pap');
  const email = `team-${randomBytes(4).toString('hex')}@partner.example`;
  await store.createApplication({
    id: applicationId,
    kind: 'issuer',
    organisation: 'Fixture Partner',
    contactName: 'Fixture Contact',
    contactEmail: email,
    country: null,
    website: null,
    useCase: 'A fixture for suites that need a partner session.',
    stage: 'live',
    stageAt: now,
    statusTokenHash: hashToken(randomBytes(32).toString('base64url')),
    tenant: options.tenant ?? 'demo-transit',
    grant: { scopes: options.scopes ?? ['issuance'], rateClass: options.rateClass ?? 'sandbox' },
    createdBy: 'public',
    createdAt: now,
    updatedAt: now,
  });
  const memberId = id('ptm');
  await store.addMember({ id: memberId, applicationId, email, role: options.role ?? 'admin', addedBy: 'public', addedAt: now });
  const token = newToken(systemRandom, PARTNER_SESSION_PREFIX);
  await store.createSession(hashToken(token), memberId, now, now + 3_600_000);
  return { bearer: { authorization: `Bearer ${token}` }, applicationId, memberId };
}
