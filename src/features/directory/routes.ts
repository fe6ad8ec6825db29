import { Type } from '@sinclair/typebox';
import { CONTACT_KINDS } from '../../core/directory-entry.ts';
import { ServiceError } from '../../core/errors.ts';
import { holderOf } from '../../http/auth/holder-jws.ts';
import { Cursor, ListPage } from '../../http/list.ts';
import { defineRoute, type RouteDef, type RouteGroup } from '../../http/route.ts';
import { DisplayName, refusal, Slug } from '../../http/schemas/common.ts';
import { type DirectoryService, MAX_CONTACTS, SEARCH_PAGE_DEFAULT, SEARCH_PAGE_MAX } from './directory-service.ts';

const UNDOCUMENTED = 'The interface does not show the directory’s bodies; docs/directory.md states ours.';
const Kind = Type.Union(CONTACT_KINDS.map((k) => Type.Literal(k)));
/** A contact a holder lists or looks up by: its kind and its value (never stored as given). */
export const Contact = Type.Object(
  { kind: Kind, value: Type.String({ minLength: 1, maxLength: 320 }) },
  { additionalProperties: false },
);
const Entry = Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: 'A contact entry: base64url HMAC-SHA256.' });
const Limit = Type.Optional(
  Type.Integer({ minimum: 1, maximum: SEARCH_PAGE_MAX, description: `Default ${SEARCH_PAGE_DEFAULT}.` }),
);
const Found = Type.Object({
  accountId: Type.String(),
  community: Type.String(),
  communityName: Type.String(),
  displayName: Type.String(),
});
const Listing = Type.Object({
  accountId: Type.String(),
  community: Type.String(),
  displayName: Type.String(),
  contacts: Type.Array(
    Type.Object({
      kind: Type.String(),
      entry: Type.String(),
      current: Type.Boolean({ description: 'false: made under an earlier pepper; it no longer matches lookups.' }),
    }),
  ),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
const Page = ListPage('listings', Found);

const COMMON_REFUSALS = {
  400: refusal(['invalid_request', 'malformed_json', 'invalid_contact']),
  401: refusal('unauthorized'),
  403: refusal('not_enrolled', 'the holder is not an active member of a programme (or of that community)'),
  503: refusal('directory_unconfigured', 'OPENRAIL_DIRECTORY_PEPPER is not set'),
};

/** The holder directory's routes (docs/directory.md); without a service they answer 503 directory_unconfigured. */
export function directoryRoutes(directory: DirectoryService | undefined): RouteGroup {
  const configured = (): DirectoryService => {
    if (!directory)
      throw new ServiceError(
        'directory_unconfigured',
        'This deployment has no holder directory (OPENRAIL_DIRECTORY_PEPPER is not set).',
      );
    return directory;
  };
  // After authentication and before the body is validated: an unconfigured directory answers 503 whatever is asked.
  const common = {
    auth: 'holder',
    stability: 'unpromised',
    undocumented: UNDOCUMENTED,
    beforeValidation: () => void configured(),
  } as const satisfies Partial<RouteDef>;
  return {
    name: 'directory',
    routes: [
      defineRoute({
        ...common,
        method: 'POST',
        path: '/directory/descriptor',
        summary: 'The entry a contact is listed and looked up under (a keyed hash; the contact is not kept).',
        body: Contact,
        responses: {
          200: { description: 'The entry.', schema: Type.Object({ kind: Type.String(), entry: Type.String() }) },
          ...COMMON_REFUSALS,
          429: refusal('rate_limited'),
        },
        handler: async (request, reply) => {
          const { body, headers } = await configured().descriptor(holderOf(request).accountId, request.body);
          return reply.headers(headers).send(body);
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: '/directory/listing',
        summary:
          'Create or replace the holder’s own listing: a display name, a community it belongs to, and contacts (stored hashed).',
        body: Type.Object(
          { displayName: DisplayName(64), community: Slug, contacts: Type.Array(Contact, { maxItems: MAX_CONTACTS }) },
          { additionalProperties: false },
        ),
        responses: {
          200: { description: 'The listing, replaced.', schema: Listing },
          201: { description: 'The listing, created.', schema: Listing },
          ...COMMON_REFUSALS,
        },
        handler: async (request, reply) => {
          const { created, listing } = await configured().put(holderOf(request).accountId, request.body);
          return reply.code(created ? 201 : 200).send(listing);
        },
      }),
      defineRoute({
        ...common,
        method: 'DELETE',
        path: '/directory/listing',
        summary: 'Remove the holder’s own listing and its contacts.',
        responses: { 204: { description: 'Removed.' }, ...COMMON_REFUSALS, 404: refusal('unknown_listing') },
        handler: async (request, reply) => {
          await configured().remove(holderOf(request).accountId);
          return reply.code(204).send();
        },
      }),
      defineRoute({
        ...common,
        method: 'GET',
        path: '/directory/listing/me',
        summary: 'The holder’s own listing, contacts as entries.',
        responses: {
          200: { description: 'The listing.', schema: Listing },
          ...COMMON_REFUSALS,
          404: refusal('unknown_listing'),
        },
        handler: async (request) => configured().me(holderOf(request).accountId),
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: '/directory/lookup',
        summary: 'The listings in the holder’s communities that carry a contact entry (at most 10).',
        body: Type.Object({ entry: Entry }, { additionalProperties: false }),
        responses: {
          200: { description: 'Listings with that entry.', schema: Type.Object({ listings: Type.Array(Found) }) },
          ...COMMON_REFUSALS,
          429: refusal('rate_limited'),
        },
        handler: async (request, reply) => {
          const { body, headers } = await configured().lookup(holderOf(request).accountId, request.body.entry);
          return reply.headers(headers).send(body);
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: '/directory/search/community',
        summary: 'The listings of a community the holder belongs to, by name.',
        body: Type.Object({ community: Slug, limit: Limit, cursor: Type.Optional(Cursor) }, { additionalProperties: false }),
        responses: { 200: { description: 'A page of listings.', schema: Page }, ...COMMON_REFUSALS },
        handler: async (request) => {
          const { community, limit, cursor } = request.body;
          return configured().byCommunity(holderOf(request).accountId, community, limit ?? SEARCH_PAGE_DEFAULT, cursor);
        },
      }),
      defineRoute({
        ...common,
        method: 'POST',
        path: '/directory/search/name',
        summary:
          'Listings in the holder’s communities whose display name starts with the query (at least 2 characters), or in one of them.',
        body: Type.Object(
          {
            query: Type.String({ minLength: 2, maxLength: 64 }),
            community: Type.Optional(Slug),
            limit: Limit,
            cursor: Type.Optional(Cursor),
          },
          { additionalProperties: false },
        ),
        responses: { 200: { description: 'A page of listings.', schema: Page }, ...COMMON_REFUSALS },
        handler: async (request) => {
          const { query, community, limit, cursor } = request.body;
          return configured().byName(holderOf(request).accountId, query, community, limit ?? SEARCH_PAGE_DEFAULT, cursor);
        },
      }),
    ],
  };
}
