import { ServiceError } from '../core/errors.ts';

/**
 * An application/x-www-form-urlencoded body as a plain object. RFC 6749 §3.2: a parameter sent
 * more than once is refused, never resolved by picking one of the values.
 */
export function parseForm(body: string): Record<string, string> {
  const form: Record<string, string> = Object.create(null);
  for (const [name, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(form, name)) throw new ServiceError('invalid_request', `The parameter "${name}" is sent more than once.`);
    form[name] = value;
  }
  return form;
}
