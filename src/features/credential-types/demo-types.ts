import type { FormatsRequest } from './type-service.ts';

/**
 * Credential types the demonstration tenant is seeded with (docs/tenants.md, demonstration
 * tenants), so that a fresh deployment has something to offer, hold and verify.
 *
 * The Transit Pass is offered as SD-JWT VC and as ISO mdoc (docs/mdoc.md): its SD-JWT VC
 * configuration stays the first an offer names, so a wallet that takes the first gets what it
 * always got. Its mdoc takes the default doctype and namespace, the deployment's reversed host,
 * the tenant and the type (`localhost.demo-transit.transit-pass` under `npm start`): a doctype
 * names what issues it, and a name of the deployment's own is one no other deployment's demo
 * shares, where a fixed one (`org.openrail.…`) would claim a domain for every deployment alike.
 */
export const DEMO_TYPES: ReadonlyArray<{ name: string; claims: string[]; formats?: FormatsRequest }> = [
  {
    name: 'Transit Pass',
    claims: ['given_name', 'family_name', 'pass_number', 'fare_zone:enum(central|inner|outer)', 'valid_until:date'],
    formats: { mdoc: {} },
  },
  {
    name: 'Reduced Fare Card',
    claims: ['given_name', 'family_name', 'concession:enum(student|senior|disability)', 'expires_on:date'],
  },
];
