/**
 * The error catalogue: every refusal the service makes is one of these codes.
 * `docs/errors.md` lists the same codes; src/core/errors.test.ts keeps the two in step.
 * The public description is what a caller reads; an internal cause, if any, is only logged.
 */
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, description: 'The request is malformed or fails the operation schema.' },
  malformed_json: { status: 400, description: 'The request body is not valid JSON.' },
  malformed_request: { status: 400, description: 'The request is not well-formed HTTP.' },
  bad_url: { status: 400, description: 'The request path is not valid percent-encoding.' },
  invalid_claim_spec: { status: 400, description: 'A claim specification of the credential type is not recognised.' },
  reserved_claim: {
    status: 400,
    description: 'A claim key is reserved by SD-JWT VC (iss, sub, aud, exp, nbf, iat, jti, cnf, vct, status, _sd, _sd_alg).',
  },
  invalid_subject: { status: 400, description: 'A subject value does not satisfy its claim specification.' },
  reserved_name: { status: 400, description: 'The name is reserved (for example a demonstration-tenant name).' },
  unsupported_claim: {
    status: 400,
    description: 'A requested claim discloses array elements one by one, which the verifier does not check.',
  },
  unknown_claim: { status: 400, description: 'A requested claim is not a claim of the credential type.' },
  unsupported_format: {
    status: 400,
    description:
      'The credential type is not offered in the format asked for, or mso_mdoc is asked of a trusted issuer (docs/mdoc.md).',
  },
  unknown_option: { status: 400, description: "The option is not one of the proposal's options." },
  unsupported_contract: { status: 400, description: 'The deposit names a contract version this service does not speak.' },
  invalid_currency: { status: 400, description: 'An amount is not in an ISO 4217 currency, or a deposit mixes currencies.' },
  unknown_element: { status: 400, description: 'An element named for sharing is not one the item has.' },
  invalid_domain: { status: 400, description: 'The custom domain is not a DNS host name this service can verify.' },
  unknown_action: { status: 400, description: 'No four-eyes action has this name.' },
  invalid_webhook_url: {
    status: 400,
    description: 'The webhook URL is not an https URL of a public host (or an origin OPENRAIL_OUTBOUND_ALLOW lists).',
  },
  invalid_contact: { status: 400, description: 'A directory contact is not a valid e-mail address or E.164 phone number.' },
  invalid_code: { status: 400, description: 'The code is wrong, expired, already used or out of attempts: ask for a new one.' },
  weak_password: { status: 400, description: 'The password does not meet the password policy.' },
  unauthorized: { status: 401, description: 'Credentials are missing, invalid, expired or belong to another plane.' },
  invalid_credentials: { status: 401, description: 'The username or password is wrong, or the operator cannot sign in.' },
  forbidden: { status: 403, description: 'The credential is valid but lacks the role or tenant scope for this operation.' },
  untrusted_issuer: {
    status: 403,
    description: "The issuer is not in this deployment's trust registry, or an operator suspended or removed it.",
  },
  tenant_suspended: {
    status: 403,
    description: 'The tenant is suspended: it issues nothing and its integration tokens are refused.',
  },
  same_operator: {
    status: 403,
    description: 'The operator who asked for this, or an operator linked to it, cannot also decide it (four eyes).',
  },
  outside_grant: {
    status: 403,
    description: 'A partner key asks for a scope outside the grant an operator attached to the partner.',
  },
  cross_origin_form: { status: 403, description: 'A form was posted from a page that is not of this deployment.' },
  cross_site_request: {
    status: 403,
    description: 'A browser sent this request from another site (Sec-Fetch-Site cross-site or same-site); nothing was done.',
  },
  account_mismatch: { status: 403, description: 'The account id in the path is not the signer of the holder JWS.' },
  not_enrolled: {
    status: 403,
    description: 'Only holders enrolled in a programme (a community) use the directory, and list in their own communities.',
  },
  not_a_member: { status: 403, description: "The account is not a member of the tenant's programme." },
  member_inactive: { status: 403, description: 'The member is suspended or erased and cannot vote.' },
  not_eligible: { status: 403, description: "The member's tier is not eligible to vote on this proposal." },
  type_not_enrolling: { status: 403, description: 'The tenant does not accept this credential type for enrolment.' },
  not_found: { status: 404, description: 'No such route or resource.' },
  method_not_allowed: {
    status: 405,
    description: 'The path is served, but not with this method; Allow lists the methods it takes.',
  },
  unknown_backup: { status: 404, description: 'No backup has this id.' },
  metrics_off: { status: 404, description: 'Metrics are off on this deployment: OPENRAIL_METRICS_TOKEN turns them on.' },
  unknown_tenant: { status: 404, description: 'No tenant has this slug.' },
  unknown_type: { status: 404, description: 'The tenant has no credential type with this typeId.' },
  unknown_credential: { status: 404, description: 'No credential of this tenant matches the reference.' },
  unknown_status_list: { status: 404, description: 'The tenant has no status list with this sequence number.' },
  unknown_offer: { status: 404, description: 'No open credential offer has this reference.' },
  unknown_issuer: { status: 404, description: 'No issuer of this deployment, or of its trust registry, has this DID.' },
  unknown_transaction: { status: 404, description: 'No live presentation transaction has this id.' },
  unknown_document: { status: 404, description: 'No document of this deployment has this name.' },
  demo_unavailable: {
    status: 404,
    description: 'This deployment runs no demonstration tenant, so the demo page issues nothing.',
  },
  unknown_demo: { status: 404, description: 'No demonstration offer has this id and demo token.' },
  not_collected: {
    status: 409,
    description: 'No wallet has collected the demonstration credential yet: there is nothing to revoke.',
  },
  wrong_result_token: {
    status: 403,
    description: 'The bearer is not the resultToken of this transaction: its result stays private.',
  },
  response_code_required: {
    status: 403,
    description:
      'This transaction was answered by a wallet on the same device: its outcome is released with the response code the browser brought back.',
  },
  wrong_response_code: {
    status: 403,
    description: 'The response code is not the one this transaction handed its wallet: its result stays private.',
  },
  wallet_trust_unconfigured: {
    status: 409,
    description: 'This deployment trusts no wallet provider, so it can check no wallet or key attestation.',
  },
  transaction_complete: { status: 409, description: 'The presentation transaction already has its outcome.' },
  dc_api_not_requested: {
    status: 409,
    description: 'The presentation transaction was opened without an origin, so it takes no Digital Credentials API answer.',
  },
  unreadable_response: {
    status: 400,
    description:
      'The wallet answer cannot be read: it is not encrypted to this transaction’s key, uses another algorithm, or holds neither response nor error.',
  },
  unknown_operator: { status: 404, description: 'No operator has this username.' },
  unknown_member: { status: 404, description: 'The tenant has no member with this account id.' },
  unknown_proposal: { status: 404, description: 'The tenant has no proposal with this id.' },
  unknown_item: {
    status: 404,
    description: 'The account has no such wallet item (or it has not materialised: the account is not enrolled).',
  },
  unknown_product: { status: 404, description: 'No product of the tenant has this id.' },
  unknown_channel: { status: 404, description: 'The tenant has no channel with this account.' },
  unknown_wallet: { status: 404, description: 'No wallet provider has this id.' },
  unknown_webhook: { status: 404, description: 'No webhook endpoint you may see has this id.' },
  unknown_delivery: { status: 404, description: 'No webhook delivery you may see has this id.' },
  unknown_provisioning_request: { status: 404, description: 'No provisioning request you may see has this id.' },
  unknown_deposit: { status: 404, description: 'The tenant has no deposit with this depositId.' },
  unknown_listing: { status: 404, description: 'The holder has no directory listing.' },
  unknown_holder: { status: 404, description: 'No tenant you may see holds anything of this holder account.' },
  unknown_token: { status: 404, description: 'No integration token you may see has this id.' },
  unknown_application: { status: 404, description: 'No partner application matches this id and status token.' },
  unknown_team_member: { status: 404, description: "The partner's team has no member with this id." },
  unknown_approval: { status: 404, description: 'No approval you may see has this id.' },
  unknown_incident: { status: 404, description: 'No incident has this id.' },
  unknown_request: { status: 404, description: 'No data-subject request of this kind has this id.' },
  unknown_account: { status: 404, description: 'The service holds nothing of this account: the lookup finds it nowhere.' },
  unknown_asset: { status: 404, description: 'No static file of the pages has this name.' },
  unknown_audit_entry: { status: 404, description: 'No audit entry you may see has this sequence number.' },
  conflict: { status: 409, description: 'The resource already exists or is in a state that forbids the change.' },
  nonce_reused: { status: 409, description: 'The nonce already belongs to a live presentation transaction.' },
  issuer_known: {
    status: 409,
    description: 'The issuer is already in the trust registry (restore it if it is suspended or removed).',
  },
  issuer_is_tenant: { status: 409, description: "The issuer is one of this deployment's tenants, trusted by construction." },
  backup_unavailable: {
    status: 409,
    description:
      'This deployment cannot take a backup: its database is in memory, or the engine’s dump tool is missing or failed.',
  },
  issuer_state: { status: 409, description: "The trusted issuer's state does not allow this change." },
  already_member: { status: 409, description: "The account is already a member of the tenant's programme." },
  member_erased: { status: 409, description: 'The member record is erased and cannot change.' },
  insufficient_balance: { status: 409, description: 'The debit would take the coin balance below zero.' },
  idempotency_conflict: { status: 409, description: 'The idempotency key was used before with a different body.' },
  proposal_state: { status: 409, description: 'The proposal is not in the state this action needs.' },
  proposal_not_open: { status: 409, description: 'The proposal is not open for votes, or its window does not hold now.' },
  already_voted: { status: 409, description: 'The member has already voted on this proposal.' },
  verification_pending: { status: 409, description: 'The presentation transaction has no outcome yet.' },
  verification_failed: { status: 409, description: 'The presentation transaction completed without an accepted presentation.' },
  transaction_used: { status: 409, description: 'The presentation transaction has already enrolled a member.' },
  deposit_conflict: { status: 409, description: 'A different deposit was delivered before under the same depositId.' },
  no_approved_product: { status: 409, description: 'The tenant has no approved product for this kind of deposit.' },
  channel_required: { status: 409, description: 'The product deposits only to accounts with an active channel.' },
  channel_state: { status: 409, description: 'The channel is not in the state this action needs.' },
  item_not_accepted: { status: 409, description: 'Only an accepted wallet item can be shared.' },
  item_not_shareable: { status: 409, description: 'This kind of wallet item has nothing the service can share.' },
  wallet_state: { status: 409, description: 'The wallet provider is not in the state this decision needs.' },
  item_expired: { status: 409, description: 'The wallet item expired before it was decided.' },
  provisioning_state: {
    status: 409,
    description: 'The provisioning request is not pending (approved, rejected, withdrawn or expired).',
  },
  token_revoked: { status: 409, description: 'The integration token is revoked.' },
  signin_unavailable: { status: 409, description: 'The sign-in request is unknown, expired or already approved.' },
  webhook_inactive: { status: 409, description: 'The webhook endpoint is inactive; activate it first.' },
  webhook_limit: { status: 409, description: 'The tenant already has as many webhook endpoints as a tenant may have.' },
  api_token_limit: {
    status: 409,
    description: 'This sign-in already has as many live API tokens as a browser session may make; none was made.',
  },
  delivery_state: { status: 409, description: 'Only a dead delivery, or a failed one awaiting its retry, can be re-driven.' },
  item_decided: { status: 409, description: 'The wallet item was already decided the other way.' },
  illegal_transition: { status: 409, description: "The partner pipeline's transition table does not allow this move." },
  partner_not_approved: { status: 409, description: 'The partner application is not approved (or later) yet.' },
  partner_linked: { status: 409, description: 'The partner is already linked to another tenant.' },
  no_grant: { status: 409, description: 'The partner has no grant yet: an operator links it to a tenant first.' },
  team_member_exists: { status: 409, description: "The address is already on the partner's team." },
  last_admin: { status: 409, description: "The change would leave the partner's team without an admin." },
  identity_linked: { status: 409, description: 'The enterprise identity is already linked to another operator.' },
  operator_state: {
    status: 409,
    description:
      'The operator is not in a state this change applies to (an invitation goes to an invited or active operator; an invited one is not enabled or suspended).',
  },
  invitation_unavailable: { status: 410, description: 'The invitation is unknown, used or expired.' },
  approval_required: {
    status: 409,
    description: 'Only an approval may make this change: file it through the back office, and a second operator approves it.',
  },
  last_owner: { status: 409, description: 'The change would leave the deployment without an active platform owner operator.' },
  org_state: { status: 409, description: 'The organisation is not in the state this action needs.' },
  operator_scope: { status: 409, description: 'The operator is scoped to another organisation, or to none.' },
  domain_state: { status: 409, description: "The organisation's custom domain is not in the state this action needs." },
  domain_taken: { status: 409, description: 'Another organisation has this custom domain.' },
  domain_mismatch: {
    status: 409,
    description: 'The document published at the domain is not the one this organisation was given.',
  },
  approval_state: { status: 409, description: 'The approval is not pending (approved, rejected, withdrawn or expired).' },
  request_state: {
    status: 409,
    description:
      'The data-subject request is no longer received (answered, refused or completed already), or an export of it is pending.',
  },
  incident_state: {
    status: 409,
    description: 'The incident cannot move to that state from where it is (open → assessed → notified → closed).',
  },
  retention_floor: {
    status: 409,
    description: 'The category is kept at least this long (or never purged) whatever a rule says.',
  },
  subject_held: {
    status: 409,
    description: 'The service holds data on this identifier, so a negative response would be untrue; look it up instead.',
  },
  bulk_too_large: { status: 409, description: 'The bulk action would touch more items than it may at once.' },
  root_replacement_pending: {
    status: 409,
    description: 'A new platform root already waits to take over; another replacement can be asked for once it has.',
  },
  external_authority: {
    status: 409,
    description:
      "The signing keys are certified by the operator's own chain (OPENRAIL_CA_CHAIN_FILE): replace it by changing that file, not through openrail.",
  },
  mail_unavailable: { status: 503, description: 'The mail could not be sent; try again later.' },
  database_unavailable: {
    status: 503,
    description: 'The database cannot be reached just now; nothing was changed. Try again in a few seconds.',
  },
  commit_unknown: {
    status: 503,
    description:
      'The connection to the database was lost while the change was being committed: it may or may not have been made. Read its state before asking again.',
  },
  signing_unavailable: {
    status: 503,
    description:
      'The key that must sign cannot be used just now (its hardware token is unreachable, refused the PIN, or lacks the key); nothing was changed. Try again after Retry-After seconds.',
  },
  domain_unreachable: { status: 502, description: "The domain's verification document could not be fetched." },
  did_unresolvable: {
    status: 502,
    description: "The issuer's DID document could not be read, is not its own, or names no P-256 signing key.",
  },
  directory_unconfigured: { status: 503, description: 'The holder directory is not configured on this deployment (no pepper).' },
  rate_limited: {
    status: 429,
    description:
      "A budget is spent: the key's rate class, or an anonymous budget of this address, subject or deployment; retry after Retry-After seconds.",
  },
  authorization_ended: {
    status: 410,
    description: 'The authorization request is unknown, already opened, expired, finished, or was opened in another browser.',
  },
  authorization_pending: { status: 409, description: 'The issuer has not approved this authorization request yet.' },
  signin_ended: { status: 410, description: 'The sign-in request is spent, expired or unknown.' },
  request_timeout: { status: 408, description: 'The request was not received in time.' },
  payload_too_large: { status: 413, description: 'The request body exceeds the size limit.' },
  uri_too_long: { status: 414, description: 'A path segment is longer than this service accepts.' },
  unsupported_media_type: { status: 415, description: 'The request body has a content type this operation does not accept.' },
  header_too_large: { status: 431, description: 'The request line and headers together exceed the size limit.' },
  // OAuth 2.0 and OID4VCI 1.0 codes, answered as {error, error_description} (RFC 6749 §5.2).
  invalid_grant: {
    status: 400,
    description: 'The pre-authorized code, transaction code or authorization code is wrong, spent or expired.',
  },
  unsupported_grant_type: {
    status: 400,
    description: 'Only the pre-authorized code grant, and where HAIP issuance is on the authorization code grant, are supported.',
  },
  invalid_client: {
    status: 401,
    description:
      'The wallet attestation (OAuth-Client-Attestation and its proof of possession) is missing, invalid, untrusted, stale or not this client’s.',
  },
  invalid_dpop_proof: {
    status: 400,
    description: 'The DPoP proof is missing, malformed, badly signed, stale, for another request, or not the bound key.',
  },
  use_dpop_nonce: {
    status: 400,
    description: 'The DPoP proof must carry the nonce this answer gives in its DPoP-Nonce header; retry with it.',
  },
  authorization_flow_off: {
    status: 400,
    description: 'This issuer does not serve the authorization code flow (its HAIP issuance is off), or not for this request.',
  },
  invalid_credential_request: { status: 400, description: 'The credential request is malformed.' },
  unknown_credential_configuration: { status: 400, description: 'The credential configuration is not offered by this issuer.' },
  unknown_credential_identifier: { status: 400, description: 'The credential identifier is unknown.' },
  invalid_proof: { status: 400, description: 'A key proof is missing or invalid.' },
  invalid_nonce: { status: 400, description: 'A key proof carries a wrong, spent or expired c_nonce; fetch a fresh one.' },
  invalid_encryption_parameters: { status: 400, description: 'Credential response encryption is not supported.' },
  credential_request_denied: { status: 400, description: 'The issuer does not issue now (it is suspended); do not retry.' },
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
