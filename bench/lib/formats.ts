import type { CredentialFormat } from '../../src/ports/credential-type-store.ts';

/**
 * The credential formats the issuance and verification benches measure (`--formats`): SD-JWT VC
 * (`dc+sd-jwt`, the bench's type id as its configuration) and ISO mdoc (`mso_mdoc`, the
 * configuration `<typeId>.mdoc`; docs/mdoc.md). Rows of both are printed beside each other.
 */
export type Format = 'sd-jwt' | 'mdoc';

export const FORMATS: readonly Format[] = ['sd-jwt', 'mdoc'];

/** What the interface calls each format (credential configurations, POST /verify/request `format`). */
export const wireFormat = (format: Format): CredentialFormat => (format === 'mdoc' ? 'mso_mdoc' : 'dc+sd-jwt');

/** `--formats sd-jwt,mdoc`: a comma-separated list of different formats, in the order given; both when absent. */
export function formatsFrom(raw: string | undefined): Format[] {
  if (raw === undefined) return [...FORMATS];
  const asked = raw.split(',').map((f) => f.trim());
  const unknown = asked.find((f) => !(FORMATS as readonly string[]).includes(f));
  if (unknown !== undefined) throw new Error(`--formats takes sd-jwt, mdoc or both (got ${unknown || 'nothing'})`);
  if (new Set(asked).size !== asked.length) throw new Error(`--formats names a format twice (got ${raw})`);
  return asked as Format[];
}
