/**
 * The error catalogue: every refusal the service makes is one of these codes.
 * `docs/errors.md` lists the same codes; test/errors-catalogue.test.ts keeps the two in step.
 * The public description is what a caller reads; an internal cause, if any, is only logged.
 */
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, description: 'The request is malformed or fails the operation schema.' },
  malformed_json: { status: 400, description: 'The request body is not valid JSON.' },
  reserved_name: { status: 400, description: 'The name is reserved (for example a demonstration-tenant name).' },
  weak_password: { status: 400, description: 'The password does not meet the password policy.' },
  unauthorized: { status: 401, description: 'Credentials are missing, invalid, expired or belong to another plane.' },
  invalid_credentials: { status: 401, description: 'The username or password is wrong, or the operator cannot sign in.' },
  forbidden: { status: 403, description: 'The credential is valid but lacks the role or tenant scope for this operation.' },
  account_mismatch: { status: 403, description: 'The account id in the path is not the signer of the holder JWS.' },
  not_found: { status: 404, description: 'No such route or resource.' },
  unknown_tenant: { status: 404, description: 'No tenant has this slug.' },
  unknown_operator: { status: 404, description: 'No operator has this username.' },
  conflict: { status: 409, description: 'The resource already exists or is in a state that forbids the change.' },
  payload_too_large: { status: 413, description: 'The request body exceeds the size limit.' },
  unsupported_media_type: { status: 415, description: 'The request body has a content type this operation does not accept.' },
  internal_error: { status: 500, description: 'The service failed; the request may be retried.' },
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** A refusal from the catalogue. `message` is public; `cause` is logged only. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message?: string, options?: { headers?: Record<string, string>; cause?: unknown }) {
    super(message ?? ERROR_CATALOGUE[code].description, { cause: options?.cause });
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.headers = options?.headers ?? {};
  }
}

export class Unauthorized extends ServiceError {
  constructor(message: string, challenge: string) {
    super('unauthorized', message, { headers: { 'www-authenticate': challenge } });
  }
}

export class Forbidden extends ServiceError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

export class AccountMismatch extends ServiceError {
  constructor() {
    super('account_mismatch', 'The account id in the path is not the thumbprint of the signing key.');
  }
}
