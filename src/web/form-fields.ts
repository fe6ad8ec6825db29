/**
 * Labelled form controls for the server-rendered forms (the partner pages, the operator invitation): a label, an optional
 * hint, and the error of the last attempt next to the control it is about (aria-invalid, and
 * aria-describedby naming the hint and the error), plus the summary of every error at the top of
 * the form, announced as an alert, each item a link to its control.
 */
import { html, type SafeHtml } from './html.ts';

export interface FieldSpec {
  /** The control's name, and its id unless `id` is given (a page with several forms). */
  name: string;
  id?: string;
  label: string;
  hint?: string;
  /** What the person typed, shown again after an error. */
  value?: string | undefined;
  error?: string | undefined;
  /** Extra attributes, fixed literals such as html` type="email" required`. */
  attributes?: SafeHtml;
  /** Marks the label "(optional)". */
  optional?: boolean;
}

const idOf = (f: FieldSpec) => f.id ?? f.name;

const describedBy = (f: FieldSpec) =>
  [f.hint ? `${idOf(f)}-hint` : '', f.error ? `${idOf(f)}-error` : ''].filter(Boolean).join(' ');

function parts(f: FieldSpec) {
  const ids = describedBy(f);
  return {
    label: html`<label for="${idOf(f)}">${f.label}${f.optional ? html` <span class="optional">(optional)</span>` : null}</label>`,
    hint: f.hint ? html`<p class="hint" id="${idOf(f)}-hint">${f.hint}</p>` : null,
    error: f.error ? html`<p class="field-error" id="${idOf(f)}-error">${f.error}</p>` : null,
    aria: html`${ids ? html` aria-describedby="${ids}"` : null}${f.error ? html` aria-invalid="true"` : null}`,
  };
}

export function inputField(f: FieldSpec): SafeHtml {
  const p = parts(f);
  return html`<div class="field${f.error ? ' has-error' : ''}">${p.label}${p.hint}${p.error}
<input id="${idOf(f)}" name="${f.name}" value="${f.value ?? ''}"${f.attributes ?? null}${p.aria}></div>`;
}

export function textareaField(f: FieldSpec): SafeHtml {
  const p = parts(f);
  return html`<div class="field${f.error ? ' has-error' : ''}">${p.label}${p.hint}${p.error}
<textarea id="${idOf(f)}" name="${f.name}"${f.attributes ?? null}${p.aria}>${f.value ?? ''}</textarea></div>`;
}

export function selectField(
  f: FieldSpec & { options: ReadonlyArray<{ value: string; label: string }>; placeholder: string },
): SafeHtml {
  const p = parts(f);
  const option = (value: string, label: string) =>
    value === (f.value ?? '')
      ? html`<option value="${value}" selected>${label}</option>`
      : html`<option value="${value}">${label}</option>`;
  return html`<div class="field${f.error ? ' has-error' : ''}">${p.label}${p.hint}${p.error}
<select id="${idOf(f)}" name="${f.name}"${f.attributes ?? null}${p.aria}>${option('', f.placeholder)}${f.options.map((o) => option(o.value, o.label))}</select></div>`;
}

/** Every error of the form, in the order of its fields, each linking to its control. */
export function errorSummary(errors: Partial<Record<string, string>>, order: readonly string[]): SafeHtml | null {
  const listed = order.filter((name) => errors[name]);
  if (listed.length === 0) return null;
  return html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title">
<h2 id="error-summary-title">${listed.length === 1 ? 'There is a problem with one field' : `There are problems with ${listed.length} fields`}</h2>
<ul>${listed.map((name) => html`<li><a href="#${name}">${errors[name]}</a></li>`)}</ul>
</div>`;
}
