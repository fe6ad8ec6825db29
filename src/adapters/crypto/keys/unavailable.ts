import { ServiceError } from '../../../core/errors.ts';

/** How long a key backend found unusable is left alone before the next attempt; also the Retry-After. */
export const TOKEN_RETRY_SECONDS = 5;

/** The 503 a signature answers while its key cannot be used. `reason` names what failed, never a PIN. */
export const signingUnavailable = (reason: string, cause?: unknown) =>
  new ServiceError('signing_unavailable', `The key store cannot sign just now (${reason}); try again shortly.`, {
    headers: { 'retry-after': String(TOKEN_RETRY_SECONDS) },
    cause,
  });
