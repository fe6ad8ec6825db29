/** RFC 9116: Contact (one or more) and Expires (exactly once) are required. */
export interface SecurityTxt {
  contacts: string[];
  expires: Date;
  canonical?: string;
  policy?: string;
  preferredLanguages?: string;
}

export function renderSecurityTxt(s: SecurityTxt): string {
  const lines = [...s.contacts.map((c) => `Contact: ${c}`), `Expires: ${s.expires.toISOString().replace(/\.\d{3}Z$/, 'Z')}`];
  if (s.canonical) lines.push(`Canonical: ${s.canonical}`);
  if (s.policy) lines.push(`Policy: ${s.policy}`);
  if (s.preferredLanguages) lines.push(`Preferred-Languages: ${s.preferredLanguages}`);
  return `${lines.join('\n')}\n`;
}
