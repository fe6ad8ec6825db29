/**
 * Forms from an operation's body schema, and the JSON body from what a browser posts back: the
 * operator web apps never describe an operation's fields a second time (docs/admin-app.md, "Forms").
 * The operation validates the body itself; this only turns form text into the JSON types the
 * schema names, and says which field could not be read.
 */
import { inputField, selectField, textareaField } from '../../web/form-fields.ts';
import { html, type SafeHtml } from '../../web/html.ts';
import type { JsonSchema } from './contract.ts';

export type FieldKind = 'text' | 'integer' | 'number' | 'boolean' | 'choice' | 'lines' | 'json';

export interface FormField {
  /** The body field's name; the control is named `f_<name>` (a path parameter's `p_<name>`). */
  name: string;
  kind: FieldKind;
  required: boolean;
  schema: JsonSchema;
  options?: string[];
}

/** A field that takes a secret: a password control, sent as typed. */
const SECRET_FIELD = /password|passphrase/i;

/** A body that is not an object of named fields is edited whole, as JSON, in this one field. */
export const WHOLE_BODY = '_body';

const choices = (s: JsonSchema): string[] | undefined => {
  if (Array.isArray(s.enum) && s.enum.every((v) => typeof v === 'string')) return s.enum as string[];
  if (Array.isArray(s.anyOf) && s.anyOf.length > 0 && s.anyOf.every((a) => typeof a.const === 'string')) {
    return s.anyOf.map((a) => a.const as string);
  }
  return undefined;
};

function kindOf(s: JsonSchema): Pick<FormField, 'kind' | 'options'> {
  // A nullable value (`anyOf [X, null]`) is edited as X; leaving it empty leaves it out.
  const nonNull = s.anyOf?.filter((a) => a.type !== 'null');
  if (s.anyOf && nonNull?.length === 1 && nonNull[0] && s.anyOf.length === 2)
    return kindOf({ ...nonNull[0], description: s.description ?? nonNull[0].description });
  const options = choices(s);
  if (options) return { kind: 'choice', options };
  if (typeof s.const === 'string') return { kind: 'choice', options: [s.const] };
  switch (s.type) {
    case 'string':
      return { kind: 'text' };
    case 'integer':
      return { kind: 'integer' };
    case 'number':
      return { kind: 'number' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'array':
      return s.items && (s.items.type === 'string' || choices(s.items)) ? { kind: 'lines' } : { kind: 'json' };
    default:
      return { kind: 'json' };
  }
}

/** The fields of a body schema, leaving out those the page fills itself (`omit`). */
export function fieldsOf(schema: JsonSchema | undefined, omit: ReadonlySet<string> = new Set()): FormField[] {
  if (!schema) return [];
  if (!schema.properties) {
    return [{ name: WHOLE_BODY, kind: 'json', required: true, schema }];
  }
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties)
    .filter(([name]) => !omit.has(name))
    .map(([name, s]) => ({ name, required: required.has(name), schema: s, ...kindOf(s) }));
}

/** Words a name abbreviates, as a reader writes them. */
const WORDS: Readonly<Record<string, string>> = {
  dsar: 'DSAR',
  ropa: 'RoPA',
  did: 'DID',
  dids: 'DIDs',
  id: 'ID',
  ids: 'IDs',
  uri: 'URI',
  url: 'URL',
  idp: 'identity provider',
  orgs: 'organisations',
  seq: 'number',
};

/** `auditSeq` → "Audit number", `nextCursor` → "Next cursor", `dsar` → "DSAR". */
export function humanize(name: string): string {
  if (name === WHOLE_BODY) return 'Request body (JSON)';
  const words = name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .trim()
    .split(/\s+/)
    .map((w) => WORDS[w] ?? w)
    .join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function hintOf(field: FormField): string | undefined {
  const parts = [field.schema.description];
  if (field.kind === 'lines') {
    const allowed = field.schema.items && choices(field.schema.items);
    parts.push(allowed ? `One per line, from: ${allowed.join(', ')}.` : 'One per line.');
  }
  if (field.kind === 'json') parts.push('JSON.');
  return parts.filter(Boolean).join(' ') || undefined;
}

/** One field's control, its id unique within the page (`idPrefix`). */
export function renderField(field: FormField, idPrefix: string, control = `f_${field.name}`, value?: string): SafeHtml {
  const spec = {
    name: control,
    id: `${idPrefix}-${control}`,
    label: humanize(field.name),
    hint: hintOf(field),
    optional: !field.required,
    value,
  };
  const required = field.required ? html` required` : null;
  const maxLength = field.schema.maxLength === undefined ? null : html` maxlength="${field.schema.maxLength}"`;
  switch (field.kind) {
    case 'boolean':
      return html`<div class="field checkbox-field"><input type="checkbox" id="${spec.id}" name="${control}" value="true"${
        value === 'true' ? html` checked` : null
      }><label for="${spec.id}">${spec.label}${field.required ? null : html` <span class="optional">(optional)</span>`}</label>${
        spec.hint ? html`<p class="hint">${spec.hint}</p>` : null
      }</div>`;
    case 'choice':
      return selectField({
        ...spec,
        attributes: required ?? undefined,
        options: (field.options ?? []).map((o) => ({ value: o, label: o })),
        placeholder: field.required ? 'Choose…' : '(none)',
      });
    case 'lines':
    case 'json':
      return textareaField({ ...spec, attributes: html` rows="${field.kind === 'json' ? 4 : 3}" spellcheck="false"${required}` });
    case 'integer':
    case 'number':
      return inputField({
        ...spec,
        attributes: html` inputmode="${field.kind === 'integer' ? 'numeric' : 'decimal'}"${required}`,
      });
    default:
      return SECRET_FIELD.test(field.name)
        ? inputField({ ...spec, attributes: html` type="password" autocomplete="new-password"${required}${maxLength}` })
        : inputField({ ...spec, attributes: html` autocomplete="off" spellcheck="false"${required}${maxLength}` });
  }
}

export type BodyResult = { ok: true; body: Record<string, unknown> | unknown } | { ok: false; field: string; message: string };

/** The JSON body from the posted form (`f_<name>` controls): empty optional fields are left out. */
export function bodyOf(fields: readonly FormField[], form: Readonly<Record<string, string>>): BodyResult {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = form[`f_${field.name}`];
    const text = raw?.trim() ?? '';
    const label = humanize(field.name);
    if (field.kind === 'boolean') {
      if (raw === 'true') body[field.name] = true;
      else if (field.required) body[field.name] = false;
      continue;
    }
    if (text === '') {
      if (field.kind === 'lines' && field.required) body[field.name] = [];
      continue;
    }
    switch (field.kind) {
      case 'integer':
      case 'number': {
        const n = Number(text);
        if (!Number.isFinite(n) || (field.kind === 'integer' && !Number.isInteger(n))) {
          return {
            ok: false,
            field: field.name,
            message: `${label} must be ${field.kind === 'integer' ? 'a whole number' : 'a number'}.`,
          };
        }
        body[field.name] = n;
        break;
      }
      case 'lines':
        body[field.name] = text
          .split(/\r?\n/)
          .map((line) => line.trim())
          .filter(Boolean);
        break;
      case 'json':
        try {
          const value: unknown = JSON.parse(text);
          if (field.name === WHOLE_BODY) return { ok: true, body: value };
          body[field.name] = value;
        } catch (err) {
          return { ok: false, field: field.name, message: `${label} is not valid JSON: ${(err as Error).message}.` };
        }
        break;
      default:
        body[field.name] = SECRET_FIELD.test(field.name) ? raw : text;
    }
  }
  return { ok: true, body };
}
