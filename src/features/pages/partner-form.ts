/**
 * The application form of /partners/apply, read by the rules of the JSON intake: the values a
 * browser posts are shaped into the intake's body and checked against the same schema
 * (ApplicationBody), with every failing field reported at once, in words for the person at the
 * form rather than the schema's.
 */
import { Type } from '@sinclair/typebox';
import { Ajv, type ErrorObject } from 'ajv';
import type { ApplicationInput } from '../partners/partner-service.ts';
import { ApplicationBody, StatusBody } from '../partners/schemas.ts';

export const APPLICATION_FIELDS = [
  'kind',
  'organisation',
  'contactName',
  'contactEmail',
  'country',
  'website',
  'useCase',
] as const;
export type ApplicationField = (typeof APPLICATION_FIELDS)[number];
export type FormValues<F extends string> = Partial<Record<F, string>>;
export type FieldErrors<F extends string> = Partial<Record<F, string>>;

/** The intake's own limits, for the form's maxlength attributes and the messages. */
export const LIMITS = {
  organisation: ApplicationBody.properties.organisation.maxLength ?? 0,
  contactName: ApplicationBody.properties.contactName.maxLength ?? 0,
  contactEmail: ApplicationBody.properties.contactEmail.maxLength ?? 0,
  website: ApplicationBody.properties.website.maxLength ?? 0,
  useCase: ApplicationBody.properties.useCase.maxLength ?? 0,
} as const;

/**
 * What the form route takes before its own checks: each field once, as a bounded string, and no
 * other field (so no stage, tenant, scope or token can be named, as at the JSON intake).
 */
const FormField = Type.Optional(Type.String({ maxLength: 10_000 }));
export const ApplicationForm = Type.Object(Object.fromEntries(APPLICATION_FIELDS.map((f) => [f, FormField])), {
  additionalProperties: false,
  examples: [
    {
      kind: 'relying-party',
      organisation: 'Harbour Bikes',
      contactName: 'Grace Hopper',
      contactEmail: 'grace@harbour-bikes.example',
      country: 'BE',
      website: 'https://harbour-bikes.example',
      useCase: 'We rent bikes at a reduced rate to holders of the city’s resident card.',
    },
  ],
});
export const StatusForm = Type.Object(
  { applicationId: Type.Optional(Type.String({ maxLength: 200 })), statusToken: Type.Optional(Type.String({ maxLength: 200 })) },
  {
    additionalProperties: false,
    examples: [{ applicationId: 'pap_Hq3mZ0vX7cLr2PzKw4sYbA', statusToken: 'STATUS-TOKEN-SHOWN-ONCE-WITH-THE-APPLICATION' }],
  },
);

interface Messages {
  missing: string;
  invalid: string;
  tooLong?: string;
}

const invisible = 'may not contain control characters or invisible formatting characters';

const MESSAGES: Record<ApplicationField, Messages> = {
  kind: { missing: 'Choose the kind of partner you are applying as.', invalid: 'Choose one of the four kinds of partner.' },
  organisation: {
    missing: 'Enter the name of your organisation.',
    invalid: `The name of your organisation ${invisible}.`,
    tooLong: `The name of your organisation is at most ${LIMITS.organisation} characters.`,
  },
  contactName: {
    missing: 'Enter the name of the person we should contact.',
    invalid: `The contact’s name ${invisible}.`,
    tooLong: `The contact’s name is at most ${LIMITS.contactName} characters.`,
  },
  contactEmail: {
    missing: 'Enter the contact’s e-mail address.',
    invalid: 'Enter an e-mail address such as name@example.org, with no spaces.',
    tooLong: `An e-mail address is at most ${LIMITS.contactEmail} characters.`,
  },
  country: {
    missing: '',
    invalid: 'Enter a two-letter country code such as BE or PT, or leave it empty.',
  },
  website: {
    missing: '',
    invalid: 'Enter an address that starts with https://, with no spaces, or leave it empty.',
    tooLong: `A website address is at most ${LIMITS.website} characters.`,
  },
  useCase: {
    missing: 'Tell us what you want to do with the service.',
    invalid: `Your use case ${invisible}.`,
    tooLong: `Your use case is at most ${LIMITS.useCase} characters.`,
  },
};

const OPTIONAL: ReadonlySet<ApplicationField> = new Set(['country', 'website']);

// The same rules as the routes' validation: nothing coerced, every failing field reported.
const ajv = new Ajv({ coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: true, strict: false });
const check = ajv.compile(ApplicationBody);

/** An application id and status token of the JSON status read's shapes (StatusBody). */
export const wellFormedStatus = ajv.compile(StatusBody);

/**
 * The use case is one paragraph of display text at the intake, where a line break is a control
 * character: lines typed in the textarea are joined with a space rather than refused.
 */
const oneParagraph = (text: string) =>
  text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .join(' ');

const fieldOf = (e: ErrorObject): string | undefined =>
  e.keyword === 'required' ? (e.params as { missingProperty?: string }).missingProperty : e.instancePath.split('/')[1];

export type ApplicationReading =
  | { ok: true; input: ApplicationInput }
  | { ok: false; values: FormValues<ApplicationField>; errors: FieldErrors<ApplicationField> };

/** The posted form as the intake's body, or the values to show again with an error for each bad field. */
export function readApplicationForm(form: FormValues<ApplicationField>): ApplicationReading {
  const body: Record<string, string> = {};
  for (const field of APPLICATION_FIELDS) {
    const raw = form[field] ?? '';
    const value = field === 'useCase' ? oneParagraph(raw) : raw.trim();
    if (value !== '' || !OPTIONAL.has(field)) body[field] = value;
  }
  if (check(body)) return { ok: true, input: body as unknown as ApplicationInput };

  const errors: FieldErrors<ApplicationField> = {};
  for (const e of check.errors ?? []) {
    const field = fieldOf(e) as ApplicationField | undefined;
    if (!field || !(APPLICATION_FIELDS as readonly string[]).includes(field) || errors[field]) continue;
    const messages = MESSAGES[field];
    errors[field] =
      (body[field] ?? '') === ''
        ? messages.missing
        : e.keyword === 'maxLength' && messages.tooLong
          ? messages.tooLong
          : messages.invalid;
  }
  return { ok: false, values: form, errors };
}
