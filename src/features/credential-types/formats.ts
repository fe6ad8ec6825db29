import type { ClaimSpec } from '../../core/claims/claim-spec.ts';
import { ServiceError } from '../../core/errors.ts';
import type { CredentialFormat, CredentialTypeRecord, MdocProfile } from '../../ports/credential-type-store.ts';

/**
 * The formats a credential type is offered in (docs/mdoc.md, "Types with formats"): SD-JWT VC, the
 * default, and ISO mdoc. Each format is one credential configuration: the type's id names its
 * SD-JWT VC configuration, `<typeId>.mdoc` its mdoc one (a type id never holds a dot).
 */
export const FORMATS: readonly CredentialFormat[] = ['dc+sd-jwt', 'mso_mdoc'];
export const MDOC_CONFIGURATION_SUFFIX = '.mdoc';

/** A doctype or namespace: reverse-domain text, as ISO/IEC 18013-5 names them (`org.iso.18013.5.1.mDL`). */
const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$/;
/** An element identifier: the letters of a claim key. */
const ELEMENT = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/** What a registration may say of the mdoc format (POST /api/types `mdoc`). */
export interface MdocRequest {
  doctype?: string;
  namespace?: string;
  /** A claim key's `[namespace, elementIdentifier]`, where it differs from `[namespace, key]`. */
  elements?: Record<string, readonly [string, string]>;
}

const refuse = (why: string) => new ServiceError('invalid_request', why);

/** A type's configurations, each id with its format, in the order the formats are listed. */
export function configurationsOf(type: Pick<CredentialTypeRecord, 'typeId' | 'formats'>) {
  return type.formats.map((format) => ({ id: configurationId(type.typeId, format), format }));
}

export const configurationId = (typeId: string, format: CredentialFormat) =>
  format === 'mso_mdoc' ? `${typeId}${MDOC_CONFIGURATION_SUFFIX}` : typeId;

/** The type id and format a configuration id names (whether the type offers that format is the caller's to check). */
export function parseConfigurationId(id: string): { typeId: string; format: CredentialFormat } {
  return id.endsWith(MDOC_CONFIGURATION_SUFFIX)
    ? { typeId: id.slice(0, -MDOC_CONFIGURATION_SUFFIX.length), format: 'mso_mdoc' }
    : { typeId: id, format: 'dc+sd-jwt' };
}

/** `rail.example.org:3000` → `org.example.rail`: the deployment's host as the start of a doctype. */
const reversedHost = (origin: string) => new URL(origin).hostname.split('.').reverse().join('.');

/**
 * The formats and mdoc profile of a registration: SD-JWT VC alone unless the body asks for mdoc
 * (by `formats` or by `mdoc`). An mdoc's doctype defaults to the deployment's reversed host, the
 * tenant and the type (`org.example.rail.acme.season-pass`), its namespace to the doctype, each
 * claim's element to its key in that namespace.
 */
export function readFormats(
  input: { formats?: readonly string[]; mdoc?: MdocRequest },
  claims: readonly ClaimSpec[],
  defaults: { origin: string; tenant: string; typeId: string },
): { formats: CredentialFormat[]; mdoc: MdocProfile | null } {
  const asked = input.formats ?? (input.mdoc ? FORMATS : ['dc+sd-jwt']);
  const unknown = asked.find((f) => !(FORMATS as readonly string[]).includes(f));
  if (unknown !== undefined)
    throw refuse(`body/formats: "${unknown.slice(0, 40)}" is not a format; use dc+sd-jwt, mso_mdoc or both.`);
  if (asked.length === 0 || new Set(asked).size !== asked.length)
    throw refuse('body/formats must name one or two different formats.');
  const formats = FORMATS.filter((f) => asked.includes(f));
  if (!formats.includes('mso_mdoc')) {
    if (input.mdoc) throw refuse('body/mdoc describes the mso_mdoc format, which body/formats leaves out.');
    return { formats, mdoc: null };
  }
  const doctype = input.mdoc?.doctype ?? `${reversedHost(defaults.origin)}.${defaults.tenant}.${defaults.typeId}`;
  const namespace = input.mdoc?.namespace ?? doctype;
  for (const [field, value] of [
    ['doctype', doctype],
    ['namespace', namespace],
  ] as const) {
    if (!NAME.test(value))
      throw refuse(`body/mdoc/${field} must be 1 to 100 letters, digits, ".", "-" or "_", as in org.example.pass.`);
  }
  const given = input.mdoc?.elements ?? {};
  const keys = new Set(claims.map((c) => c.key));
  const stray = Object.keys(given).find((k) => !keys.has(k));
  if (stray !== undefined) throw refuse(`body/mdoc/elements names "${stray.slice(0, 64)}", which is not a claim of the type.`);
  const elements: Record<string, [string, string]> = {};
  const seen = new Set<string>();
  for (const c of claims) {
    const [ns, id] = given[c.key] ?? [namespace, c.key];
    if (!NAME.test(ns) || !ELEMENT.test(id)) {
      throw refuse(
        `body/mdoc/elements/${c.key} must be [namespace, elementIdentifier], an identifier being 1 to 64 letters, digits, "_" or "-".`,
      );
    }
    const path = `${ns}\u0000${id}`;
    if (seen.has(path)) throw refuse(`body/mdoc/elements: two claims are the element ${ns}/${id}.`);
    seen.add(path);
    elements[c.key] = [ns, id];
  }
  return { formats, mdoc: { doctype, elements } };
}
