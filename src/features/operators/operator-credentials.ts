import { ServiceError } from '../../core/errors.ts';

/** An invitation (or a password reset) can be used for this long (docs/operators.md, "Invitations"). */
export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;
export const MIN_PASSWORD_LENGTH = 12;

/**
 * How a new operator will sign in, chosen by whoever creates it (docs/security.md, "Separation of
 * duties"): an invitation mailed to the person, who then chooses a password; an enterprise
 * identity, with which the person signs in at its provider; or, for the break-glass owner token
 * only, an initial password (how a deployment gets its first people).
 */
export type FirstCredential =
  | { kind: 'invitation'; email: string }
  | { kind: 'identity'; issuer: string; subject: string }
  | { kind: 'password'; password: string };

/** At least 12 characters, not containing the username. */
export function checkPassword(password: string, username: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw new ServiceError('weak_password', `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
  if (password.toLowerCase().includes(username.toLowerCase())) {
    throw new ServiceError('weak_password', 'The password must not contain the username.');
  }
}

/** An OpenID issuer identifier: https, a host, no credentials, query or fragment (OpenID Connect Discovery §3). */
export function checkIssuer(issuer: string, plainHttpOrigins: readonly string[] = []): string {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ServiceError('invalid_request', 'issuer is not a URL.');
  }
  const plainHttpAllowed = url.protocol === 'http:' && plainHttpOrigins.includes(url.origin);
  if (
    (url.protocol !== 'https:' && !plainHttpAllowed) ||
    url.hostname === '' ||
    url.username !== '' ||
    url.password !== '' ||
    url.search !== '' ||
    url.hash !== ''
  ) {
    throw new ServiceError(
      'invalid_request',
      'issuer must be an https URL (or an origin OPENRAIL_OUTBOUND_ALLOW names) without credentials, query or fragment.',
    );
  }
  return issuer;
}

/**
 * The mail that carries an invitation or a password reset. The link's secret rides in the
 * fragment, which a browser never sends to a server, a proxy or a Referer; the page reads it
 * from there. The same secret is printed below it for a reader whose mail client drops fragments.
 */
export function invitationMail(input: {
  platform: { name: string; origin: string };
  username: string;
  roles: readonly string[];
  tenant: string | null;
  secret: string;
  reset: boolean;
  by: string;
}): { subject: string; text: string } {
  const { platform, username, secret } = input;
  const link = `${platform.origin}/operator/invitation#${secret}`;
  const hours = INVITATION_TTL_MS / 3_600_000;
  const what = input.reset
    ? [`A password reset was asked for your ${platform.name} operator account "${username}" by ${input.by}.`]
    : [
        `${input.by} invited you to operate ${platform.name} as "${username}"`,
        `with the roles ${input.roles.join(', ')}${input.tenant ? ` for ${input.tenant}` : ''}.`,
      ];
  return {
    subject: input.reset ? `Reset your ${platform.name} operator password` : `You are invited to operate ${platform.name}`,
    text: [
      ...what,
      '',
      `Choose your password here, within ${hours} hours (the link works once):`,
      link,
      '',
      `If the link does not open, go to ${platform.origin}/operator/invitation and enter this code:`,
      secret,
      '',
      input.reset
        ? 'If you did not ask for it, ignore this mail: your password stays as it is.'
        : 'If you were not expecting it, ignore this mail: nothing happens without you.',
      '',
      `${platform.name} (${platform.origin})`,
    ].join('\n'),
  };
}
