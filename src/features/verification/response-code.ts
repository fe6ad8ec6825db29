import { constantTimeEqual, hashToken } from '../../adapters/crypto/secrets.ts';
import { ServiceError } from '../../core/errors.ts';

/**
 * A transaction a wallet on the same device answered is bound to the browser that wallet returned
 * to (docs/verification.md, "A wallet on the same device"): whatever its outcome releases, the
 * result or an enrolment, needs the response code handed to that browser. Throws 403
 * response_code_required or wrong_response_code; a transaction without a code needs none.
 */
export function requireResponseCode(responseCodeHash: string | null, responseCode: string | undefined): void {
  if (responseCodeHash === null) return;
  if (responseCode === undefined) {
    throw new ServiceError(
      'response_code_required',
      'A wallet on the same device answered this transaction: send the response code its browser brought back, in Response-Code.',
    );
  }
  if (!constantTimeEqual(hashToken(responseCode), responseCodeHash)) {
    throw new ServiceError('wrong_response_code', 'This is not the response code this transaction handed its wallet.');
  }
}
