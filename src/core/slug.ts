/**
 * Tenant slugs (docs/tenants.md): derived from the display name, lowercase ASCII letters,
 * digits and single hyphens, at most 48 characters. `root` and the `demo-` prefix belong to
 * the platform and to demonstration tenants, so an ordinary tenant whose name would derive
 * one of them gets the prefix `org-` instead.
 */
export const MAX_SLUG_LENGTH = 48;
export const ROOT_SLUG = 'root';
export const DEMO_PREFIX = 'demo-';
export const DEMO_NAME_SUFFIX = ' (Demo)';

export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$';

export function isDemoSlug(slug: string): boolean {
  return slug.startsWith(DEMO_PREFIX);
}

export function isDemoName(name: string): boolean {
  return /\(\s*demo\s*\)\s*$/i.test(name);
}

/** Lowercase ASCII letters and digits joined by single hyphens, accents folded. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function clip(slug: string, max: number): string {
  return slug.slice(0, max).replace(/-+$/g, '');
}

/** The slug an ordinary tenant named `name` asks for, before collisions are resolved. */
export function baseSlug(name: string): string {
  let slug = slugify(name) || 'tenant';
  if (slug === ROOT_SLUG || slug === 'demo' || isDemoSlug(slug)) slug = `org-${slug}`;
  return clip(slug, MAX_SLUG_LENGTH);
}

/** The n-th candidate (n >= 1): the base itself, then base-2, base-3, ... within the length limit. */
export function slugCandidate(base: string, n: number): string {
  if (n <= 1) return base;
  const suffix = `-${n}`;
  return `${clip(base, MAX_SLUG_LENGTH - suffix.length)}${suffix}`;
}
