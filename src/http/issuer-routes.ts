import { type TSchema, type TString, Type } from '@sinclair/typebox';
import { pathTenant } from '../core/issuer-urls.ts';
import { ROOT_SLUG } from '../core/slug.ts';
import type { RouteDef } from './route.ts';
import { Slug } from './schemas/common.ts';

export type TenantOf = (params: Record<string, string>) => string;

/**
 * One operation for every issuer (docs/issuance.md): the platform's at `rootPath`, each tenant's
 * at `/t/{tenant}` + `rootPath` (or at `tenantPaths` where a standard places it elsewhere). `def`
 * gets the path, how to read the tenant from the path parameters, and the `{tenant}` parameter
 * schema to merge into its own.
 */
export function atEveryIssuer(
  rootPath: string,
  def: (path: string, tenantOf: TenantOf, tenantParam: Record<string, TSchema>) => RouteDef,
  tenantPaths: string[] = [`/t/{tenant}${rootPath}`],
): RouteDef[] {
  return [
    def(rootPath, () => ROOT_SLUG, {}),
    ...tenantPaths.map((path) => def(path, (p) => pathTenant(p.tenant), { tenant: Slug })),
  ];
}

/** What every issuer's public artifact read shares (metadata, type metadata, status lists): anyone may read it, from any origin. */
export const PUBLIC_ARTIFACT = { method: 'GET', auth: 'public', stability: 'unpromised', cors: true } as const;

/** What every issuer's OAuth endpoint (token, nonce, credential) shares: anonymous or token-bearing, RFC 6749 errors. */
export const OAUTH_ENDPOINT = { method: 'POST', auth: 'public', stability: 'unpromised', surface: 'oauth' } as const;

/** The path parameters of an operation with no parameters of its own. */
export const issuerParams = (tenantParam: Record<string, TSchema>) => Type.Object(tenantParam as Record<string, TString>);
