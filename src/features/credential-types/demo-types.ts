/**
 * Credential types the demonstration tenant is seeded with (docs/tenants.md, demonstration
 * tenants), so that a fresh deployment has something to offer, hold and verify.
 */
export const DEMO_TYPES: ReadonlyArray<{ name: string; claims: string[] }> = [
  {
    name: 'Transit Pass',
    claims: ['given_name', 'family_name', 'pass_number', 'fare_zone:enum(central|inner|outer)', 'valid_until:date'],
  },
  {
    name: 'Reduced Fare Card',
    claims: ['given_name', 'family_name', 'concession:enum(student|senior|disability)', 'expires_on:date'],
  },
];
