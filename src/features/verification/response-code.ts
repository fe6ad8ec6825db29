import { ServiceError } from '../../core/errors.ts';
import { constantTimeEqual, hashToken } from '../../core/secrets.ts';

/**
 * A transaction a wallet on the same device answered is bound to the browser that wallet returned
 * to (docs/verification.md, "A wallet on the same device"): whatever its outcome releases, the
 * result or an enrolment, needs the response code handed to that browser. What is missing, or
 * undefined when the code is right or the transaction needs none.
 */
export function responseCodeProblem(
  responseCodeHash: string | null,
  responseCode: string | undefined,
): 'response_code_required' | 'wrong_response_code' | undefined {
  if (responseCodeHash === null) return undefined;
  if (responseCode === undefined) return 'response_code_required';
  return constantTimeEqual(hashToken(responseCode), responseCodeHash) ? undefined : 'wrong_response_code';
}

/** responseCodeProblem as a refusal (POST /member/enroll): 403 response_code_required or wrong_response_code. */
export function requireResponseCode(responseCodeHash: string | null, responseCode: string | undefined): void {
  const problem = responseCodeProblem(responseCodeHash, responseCode);
  if (problem === 'response_code_required') {
    throw new ServiceError(
      'response_code_required',
      'A wallet on the same device answered this transaction: send the response code its browser brought back, in Response-Code.',
    );
  }
  if (problem === 'wrong_response_code') {
    throw new ServiceError('wrong_response_code', 'This is not the response code this transaction handed its wallet.');
  }
}
