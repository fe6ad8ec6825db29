import { isIP } from 'node:net';
import type { Actor } from '../../../core/actor.ts';
import { ServiceError } from '../../../core/errors.ts';
import { constantTimeEqual } from '../../../core/secrets.ts';
import { iso, isoOrNull } from '../../../http/admin/kit.ts';
import { FetchRefused } from '../../../ports/http-fetcher.ts';
import type { OrgDomain } from '../../../ports/org-store.ts';
import type { OrgServiceDeps } from './org-service.ts';
import type { DomainView } from './schemas.ts';

/** The verification document is small: anything longer is not ours. */
export const DOCUMENT_MAX_BYTES = 16 * 1024;
export const DOCUMENT_PATH = '/.well-known/openrail-domain.json';

export type DomainStateView = 'none' | OrgDomain['state'];

/**
 * An organisation's custom domain (docs/backoffice/orgs.md, "Custom domain"): asked for with a
 * fresh token, proven by a document the domain publishes and the service fetches, then activated
 * or revoked. Each move is one conditional write with its audit entry.
 */
export class OrgDomains {
  constructor(
    private readonly d: OrgServiceDeps,
    /** The organisation, or `unknown_tenant`. */
    private readonly requireOrg: (slug: string) => Promise<unknown>,
  ) {}

  async get(slug: string): Promise<DomainView> {
    await this.requireOrg(slug);
    return this.view(slug, await this.d.orgs.domain(slug));
  }

  view(slug: string, d: OrgDomain | undefined): DomainView {
    return {
      slug,
      state: d?.state ?? 'none',
      domain: d?.domain ?? null,
      documentUrl: d && d.state !== 'revoked' ? documentUrl(d.domain) : null,
      requestedAt: d ? iso(d.requestedAt) : null,
      verifiedAt: isoOrNull(d?.verifiedAt ?? null),
      activatedAt: isoOrNull(d?.activatedAt ?? null),
      revokedAt: isoOrNull(d?.revokedAt ?? null),
    };
  }

  /** Records a pending domain with a fresh token, in place of none, a pending one or a revoked one. */
  async request(slug: string, raw: string, actor: Actor): Promise<{ auditSeq: number; domain: DomainView }> {
    await this.requireOrg(slug);
    const domain = checkDomain(raw, this.d.publicUrl);
    const now = this.d.clock.now();
    const record: OrgDomain = {
      tenant: slug,
      domain,
      state: 'pending',
      token: this.d.random.text(24),
      requestedAt: now,
      verifiedAt: null,
      activatedAt: null,
      revokedAt: null,
      updatedAt: now,
    };
    const auditSeq = await this.d.uow.run(async ({ audit }) => {
      const current = await this.d.orgs.domain(slug);
      if (current && (current.state === 'verified' || current.state === 'active')) {
        throw new ServiceError(
          'domain_state',
          `The organisation's domain ${current.domain} is ${current.state}: revoke it first.`,
        );
      }
      if (await this.d.orgs.domainHolder(domain, slug)) throw domainTaken(domain);
      if (!(await this.d.orgs.putPending(record, [null, 'pending', 'revoked']))) throw domainTaken(domain);
      return audit.append({ actor, action: 'org.domain_requested', tenant: slug, target: slug, detail: { domain } });
    });
    return { auditSeq, domain: this.view(slug, record) };
  }

  /** The JSON file to publish at https://<domain>/.well-known/openrail-domain.json. */
  async document(slug: string) {
    await this.requireOrg(slug);
    const d = await this.d.orgs.domain(slug);
    if (!d || d.state === 'revoked') throw new ServiceError('domain_state', `The organisation ${slug} has no custom domain.`);
    return { url: documentUrl(d.domain), document: this.published(d) };
  }

  private published(d: OrgDomain) {
    return { tenant: d.tenant, did: this.d.tenants.didOf(d.tenant), token: d.token, issuedAt: iso(d.requestedAt) };
  }

  /**
   * Fetches the document from the domain through the guarded fetcher (https, public addresses,
   * no redirects, bounded) and marks the domain verified when it carries this organisation's slug,
   * DID and token. The fetch runs outside any transaction; the move is conditional on the token
   * fetched for, so a domain replaced meanwhile is not verified by the old one's document.
   */
  async verify(slug: string, actor: Actor): Promise<{ auditSeq: number; domain: DomainView }> {
    await this.requireOrg(slug);
    const d = await this.d.orgs.domain(slug);
    if (d?.state !== 'pending') {
      throw new ServiceError('domain_state', `The organisation ${slug} has no pending domain to verify.`);
    }
    const url = documentUrl(d.domain);
    let body: string;
    try {
      body = (await this.d.fetcher.get(url, { accept: 'application/json' })).body;
    } catch (err) {
      if (!(err instanceof FetchRefused)) throw err;
      throw new ServiceError('domain_unreachable', `${url} could not be fetched: ${err.message}.`);
    }
    if (Buffer.byteLength(body) > DOCUMENT_MAX_BYTES) {
      throw new ServiceError('domain_unreachable', `${url} answered more than ${DOCUMENT_MAX_BYTES} bytes.`);
    }
    if (!matches(body, this.published(d))) {
      throw new ServiceError('domain_mismatch', `${url} does not carry this organisation's slug, DID and token.`);
    }
    return this.move(slug, d, ['pending'], 'verified', 'org.domain_verified', actor);
  }

  async activate(slug: string, actor: Actor) {
    await this.requireOrg(slug);
    const d = await this.d.orgs.domain(slug);
    if (d?.state !== 'verified') {
      throw new ServiceError('domain_state', `Only a verified domain is activated; the organisation's is ${d?.state ?? 'none'}.`);
    }
    return this.move(slug, d, ['verified'], 'active', 'org.domain_activated', actor);
  }

  async revoke(slug: string, actor: Actor) {
    await this.requireOrg(slug);
    const d = await this.d.orgs.domain(slug);
    if (!d || d.state === 'revoked') throw new ServiceError('domain_state', `The organisation ${slug} has no domain to revoke.`);
    return this.move(slug, d, ['pending', 'verified', 'active'], 'revoked', 'org.domain_revoked', actor);
  }

  private async move(
    slug: string,
    d: OrgDomain,
    from: OrgDomain['state'][],
    to: OrgDomain['state'],
    action: string,
    actor: Actor,
  ): Promise<{ auditSeq: number; domain: DomainView }> {
    const now = this.d.clock.now();
    const auditSeq = await this.d.uow.run(async ({ audit }) => {
      if (!(await this.d.orgs.moveDomain(slug, from, to, now, d.token))) {
        throw new ServiceError('domain_state', `The organisation's domain changed meanwhile; read it again.`);
      }
      return audit.append({ actor, action, tenant: slug, target: slug, detail: { domain: d.domain, from: d.state } });
    });
    return { auditSeq, domain: await this.get(slug) };
  }
}

const domainTaken = (domain: string) => new ServiceError('domain_taken', `Another organisation has the domain ${domain}.`);

export const documentUrl = (domain: string) => `https://${domain}${DOCUMENT_PATH}`;

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A custom domain: a lower-cased DNS host name of two labels or more, at most 253 characters,
 * not an IP address (a last label of digits only reads as one) and not the deployment's own host
 * or a name under it.
 */
export function checkDomain(raw: string, publicUrl: URL): string {
  const domain = raw.toLowerCase();
  const labels = domain.split('.');
  const invalid = (why: string) => new ServiceError('invalid_domain', `The domain ${why}.`);
  if (domain.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l))) {
    throw invalid('is not a DNS host name of two labels or more (letters, digits and inner hyphens)');
  }
  if (isIP(domain) !== 0 || /^[0-9]+$/.test(labels.at(-1) as string)) throw invalid('is an IP address, not a name');
  const own = publicUrl.hostname.toLowerCase();
  if (domain === own || domain.endsWith(`.${own}`)) throw invalid("is this deployment's own host");
  return domain;
}

function matches(body: string, expected: { tenant: string; did: string; token: string }): boolean {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return false;
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return false;
  const { tenant, did, token } = doc as Record<string, unknown>;
  return (
    tenant === expected.tenant && did === expected.did && typeof token === 'string' && constantTimeEqual(token, expected.token)
  );
}
