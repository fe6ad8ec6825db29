import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import { ServiceError } from '../../core/errors.ts';
import { EVENT_TYPES } from '../../core/events.ts';
import { idPattern } from '../../core/ids.ts';
import { SLUG_PATTERN } from '../../core/slug.ts';
import { requestAjv } from '../../http/schemas/request-ajv.ts';
import { checkMoney, type DepositBody, SUPPORTED_CONTRACTS } from '../deposits/deposit-service.ts';
import { DepositContract } from '../deposits/routes.ts';

/** The event envelope an endpoint receives (docs/webhooks.md), version 1. */
const EnvelopeV1 = Type.Object(
  {
    id: Type.String({ pattern: idPattern('delivery') }),
    type: Type.Union(EVENT_TYPES.map((t) => Type.Literal(t))),
    createdAt: Type.String({ format: 'date-time' }),
    tenant: Type.String({ pattern: SLUG_PATTERN }),
    data: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: false },
);

interface Version {
  version: string;
  status: 'current' | 'deprecated';
  schema: TSchema;
  /** Checks the schema cannot state; throws a ServiceError naming what is wrong. */
  check?: (payload: unknown) => void;
}

interface Contract {
  name: string;
  summary: string;
  operation: string;
  documentation: string;
  versions: Version[];
}

/**
 * The contracts openrail promises integrators (docs/integration.md, "Contracts"): what they
 * send (the deposit rail) and what they receive (the event envelope). Each version carries its
 * schema, so an integrator can test a payload against it before going live.
 */
export const CONTRACTS: readonly Contract[] = [
  {
    name: 'deposit',
    summary: 'A business event deposited as a wallet item.',
    operation: 'POST /api/tenants/{tenant}/bills',
    documentation: 'docs/deposits.md',
    versions: SUPPORTED_CONTRACTS.map((version) => ({
      version,
      status: 'current' as const,
      schema: DepositContract,
      check: (payload: unknown) => checkMoney(payload as DepositBody),
    })),
  },
  {
    name: 'event-envelope',
    summary: 'The body of every webhook delivery, signed with the endpoint’s secret.',
    operation: 'POST to a registered webhook endpoint',
    documentation: 'docs/webhooks.md',
    versions: [{ version: '1', status: 'current', schema: EnvelopeV1 }],
  },
];

export const CONTRACT_NAMES = CONTRACTS.map((c) => c.name);

// The same rules the routes' validation applies, every error reported.
const ajv = requestAjv(true);
const validators = new Map(CONTRACTS.flatMap((c) => c.versions.map((v) => [`${c.name}@${v.version}`, ajv.compile(v.schema)])));

/** A payload checked against a version of a contract: accepted, or every reason it would be refused. */
export const Handshake = Type.Object({
  contract: Type.String(),
  version: Type.String(),
  accepted: Type.Boolean(),
  supportedVersions: Type.Array(Type.String()),
  errors: Type.Array(Type.Object({ path: Type.String(), message: Type.String() })),
});
export type HandshakeAnswer = Static<typeof Handshake>;

const describe = (e: ErrorObject) => ({
  path: e.instancePath === '' ? '/' : e.instancePath,
  message:
    e.keyword === 'additionalProperties'
      ? `unknown field ${String((e.params as { additionalProperty?: string }).additionalProperty)}`
      : (e.message ?? e.keyword),
});

/**
 * One line per problem: a choice among literals (a union) fails once per branch in Ajv's report,
 * so those become one "must be one of" per field.
 */
function summarise(errors: readonly ErrorObject[]): HandshakeAnswer['errors'] {
  const choices = new Map<string, unknown[]>();
  const lines: HandshakeAnswer['errors'] = [];
  for (const e of errors) {
    if (e.keyword === 'const') {
      const path = e.instancePath === '' ? '/' : e.instancePath;
      choices.set(path, [...(choices.get(path) ?? []), (e.params as { allowedValue?: unknown }).allowedValue]);
    } else if (e.keyword !== 'anyOf') lines.push(describe(e));
  }
  for (const [path, allowed] of choices) lines.push({ path, message: `must be one of: ${allowed.join(', ')}` });
  return lines.slice(0, 50);
}

export function listContracts() {
  return {
    contracts: CONTRACTS.map((c) => ({
      name: c.name,
      summary: c.summary,
      operation: c.operation,
      documentation: c.documentation,
      versions: c.versions.map((v) => ({ version: v.version, status: v.status, schema: v.schema as Record<string, unknown> })),
    })),
  };
}

/** Checks a payload against one version of a contract, as the service itself would take it. */
export function handshake(contract: string, version: string, payload: unknown): HandshakeAnswer {
  const found = CONTRACTS.find((c) => c.name === contract);
  if (!found) throw new ServiceError('invalid_request', `contract must be one of: ${CONTRACT_NAMES.join(', ')}.`);
  const supportedVersions = found.versions.map((v) => v.version);
  const answer = (errors: HandshakeAnswer['errors']) => ({
    contract,
    version,
    accepted: errors.length === 0,
    supportedVersions,
    errors,
  });
  const chosen = found.versions.find((v) => v.version === version);
  if (!chosen)
    return answer([{ path: '/', message: `version ${version} is not supported; use one of ${supportedVersions.join(', ')}` }]);
  const validate = validators.get(`${contract}@${version}`);
  if (validate && !validate(payload)) return answer(summarise(validate.errors ?? []));
  try {
    chosen.check?.(payload);
  } catch (err) {
    if (err instanceof ServiceError) return answer([{ path: '/', message: `${err.code}: ${err.message}` }]);
    throw err;
  }
  return answer([]);
}
