import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with its function on `default`.
const addFormats = addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv };

/**
 * An Ajv for a schema checked outside a route (an approval's parameters, an integration contract)
 * under the rules the routes' own validation applies (http/app.ts): nothing coerced, dropped or
 * defaulted, formats checked. `allErrors` reports every problem instead of the first.
 */
export function requestAjv(allErrors: boolean): Ajv {
  return addFormats.default(
    new Ajv({ coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors, strict: false }),
  );
}
