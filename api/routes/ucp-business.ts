import { z } from 'zod';
import { AppError } from '../../src/errors';
import { ucpSignerOf } from '../../src/protocols/adapters';
import { MAX_LOOKUP_IDS } from '../../src/protocols/ucp/business/catalog';
import { getUcpBusinessProduct, lookupUcpBusinessCatalog, searchUcpBusinessCatalog } from '../../src/recommend/ucp-catalog';
import { negotiate, negotiationErrorBody, PlatformProfiles, UcpNegotiationError } from '../../src/protocols/ucp/business/platform-agent';
import {
  businessProfile,
  CATALOG_LOOKUP,
  CATALOG_SEARCH,
  UCP_BUSINESS_VERSION,
  type BusinessCapability,
} from '../../src/protocols/ucp/business/profile';
import { recommendDeps } from '../../src/recommend/recommend';
import type { Config } from '../../src/config';
import type { AppContext } from '../context';
import { auth, type Reply, type RouteRegistry } from './registry';

/**
 * The gateway as a UCP business (docs/PROTOCOLS.md): its profile at `/.well-known/ucp` and the REST
 * binding's catalog operations under `/ucp` (search, batch lookup, get product) over every merchant it
 * carries. Each request names its platform in `UCP-Agent`; negotiation failures answer the spec's
 * error response with the spec's status. The bodies are UCP documents, open as the UCP schemas are.
 */

const TAG = 'UCP business';

const AnyJson = z.record(z.string(), z.unknown());
const amount = z.number().int().min(0).max(1e15);
const PriceFilter = z.looseObject({ min: amount.optional(), max: amount.optional() });
const Filters = z.looseObject({ categories: z.array(z.string().max(200)).max(50).optional(), price: PriceFilter.optional() });
const Context = z.looseObject({
  address_country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'ISO 3166-1 alpha-2 code, e.g. US')
    .optional(),
  intent: z.string().max(500).optional(),
});

const SearchBody = z
  .looseObject({
    query: z.string().max(500).optional().meta({ description: 'The shopper’s words; at most 500 characters.' }),
    context: Context.optional(),
    filters: Filters.optional(),
    pagination: z.looseObject({ cursor: z.string().max(1000).optional(), limit: z.number().int().min(1).max(1000).optional() }).optional(),
  })
  .meta({ id: 'UcpCatalogSearchRequest' });

const LookupBody = z
  .looseObject({
    ids: z
      .array(z.string().min(1).max(300))
      .min(1)
      .max(MAX_LOOKUP_IDS)
      .optional()
      .meta({ description: `Product or variant ids (1..${MAX_LOOKUP_IDS}); required.` }),
    filters: Filters.optional(),
    context: Context.optional(),
  })
  .meta({ id: 'UcpCatalogLookupRequest' });

const ProductBody = z
  .looseObject({
    id: z.string().min(1).max(300).optional().meta({ description: 'A product or variant id; required.' }),
    filters: Filters.optional(),
    context: Context.optional(),
  })
  .meta({ id: 'UcpCatalogGetProductRequest' });

/** One cache of platform profiles per configuration (one per API process). */
const platformProfiles = new WeakMap<Config, PlatformProfiles>();
function profilesOf(config: Config): PlatformProfiles {
  let p = platformProfiles.get(config);
  if (!p) {
    // A profile fetch is on the request's path: a few seconds at most, whatever the dispatch budget.
    p = new PlatformProfiles({
      allowPrivateEndpoints: config.ALLOW_PRIVATE_ENDPOINTS,
      timeoutMs: Math.min(config.DISPATCH_TIMEOUT_MS, 5000),
    });
    platformProfiles.set(config, p);
  }
  return p;
}

/** Negotiates with the request's platform, then runs the operation; a failed negotiation is the spec's error. */
async function negotiated(ctx: AppContext, capability: BusinessCapability, run: () => Promise<Reply>): Promise<Reply> {
  try {
    await negotiate(profilesOf(ctx.deps.config), ctx.get('ucp-agent') || undefined, capability);
  } catch (err) {
    if (err instanceof UcpNegotiationError) return { status: err.status, body: negotiationErrorBody(err, ctx.deps.config.publicBaseUrl) };
    throw err;
  }
  return run();
}

/** Negotiation failures: the envelope also carries UCP's `code`, `content` and `continue_url` (REST binding). */
const NEGOTIATION_ERRORS: Array<[number, string, string]> = [
  [400, 'invalid_profile_url', 'UCP-Agent is missing, malformed, or names a URL the gateway may not fetch.'],
  [422, 'version_unsupported', `The platform profile declares a UCP version other than ${UCP_BUSINESS_VERSION}.`],
  [422, 'profile_malformed', 'The platform profile is not JSON or not a UCP profile.'],
  [424, 'profile_unreachable', 'The platform profile could not be fetched (no answer in time, or not HTTP 200).'],
];

const lookupDeps = (ctx: AppContext) => ({ db: ctx.deps.db, publicBaseUrl: ctx.deps.config.publicBaseUrl, cardFacts: ctx.deps.cardFacts });

export function ucpBusinessRoutes(r: RouteRegistry): void {
  r.add({
    method: 'get',
    path: '/.well-known/ucp',
    tag: TAG,
    summary: 'UCP business profile of the gateway (2026-04-08)',
    description:
      'The gateway as a UCP business for every merchant it carries: protocol version 2026-04-08 (no older one: the catalog capabilities first appear in it), the shopping service’s REST binding at `${PUBLIC_BASE_URL}/ucp`, the capabilities dev.ucp.shopping.catalog.search and dev.ucp.shopping.catalog.lookup, and the public key of UCP_SIGNING_KEY when one is set. Checkout and order are not offered yet.',
    auth: auth.none,
    responses: { 200: { description: 'The UCP business profile.', schema: AnyJson } },
    handler: async (ctx) => {
      const signer = await ucpSignerOf(ctx.deps.config.UCP_SIGNING_KEY);
      // Profiles must be cacheable by shared caches for at least 60 s (overview.md, "Hosting").
      ctx.set('Cache-Control', 'public, max-age=300');
      return { body: businessProfile({ publicBaseUrl: ctx.deps.config.publicBaseUrl, signingJwks: signer ? [signer.publicJwk] : [] }) };
    },
  });

  r.add({
    method: 'post',
    path: '/ucp/catalog/search',
    tag: TAG,
    summary: 'UCP catalog search over every merchant',
    description:
      'UCP `search_catalog`: the recommendation engine of GET /v1/recommend over every merchant’s products (`query`, else `context.intent`; `context.address_country` is the ship-to country), answered as UCP products with prices in minor units, availability, seller and the attributed link of each product. The call records the intent, proposals and match session as GET /v1/recommend does, under the caller. At most 10 products, one page (`has_next_page` false; a cursor is past the end); `filters.price` (minor units) drops variants outside it. Needs `UCP-Agent: profile="…"` naming a 2026-04-08 platform profile that declares dev.ucp.shopping.catalog.search.',
    auth: auth.apiKey('recommend'),
    body: SearchBody,
    bodyRequired: true,
    responses: {
      200: {
        description:
          'UCP search response (catalog_search.json search_response), or the UCP error response when the platform does not declare the capability.',
        schema: AnyJson,
      },
    },
    errors: NEGOTIATION_ERRORS,
    handler: (ctx, { body }) =>
      negotiated(ctx, CATALOG_SEARCH, async () => {
        const query = (body.query ?? body.context?.intent ?? '').trim();
        if (!query)
          throw new AppError(400, 'invalid_payload', 'query (or context.intent) is required: the shopper’s words.', { fields: ['query'] });
        const out = await searchUcpBusinessCatalog(
          recommendDeps(ctx.deps),
          {
            query,
            limit: body.pagination?.limit ?? 10,
            ...(body.context?.address_country ? { region: body.context.address_country.toUpperCase() } : {}),
            ...(body.filters?.price ? { price: body.filters.price } : {}),
            ...(body.pagination?.cursor !== undefined ? { cursor: body.pagination.cursor } : {}),
          },
          { developerId: ctx.state.apiKey?.developerId },
        );
        return { body: out };
      }),
  });

  r.add({
    method: 'post',
    path: '/ucp/catalog/lookup',
    tag: TAG,
    summary: 'UCP catalog batch lookup by product or variant id',
    description: `UCP \`lookup_catalog\`: each id (a catalog product id, or \`<product id>:<feed variant id>\`) resolves to its product, with the variant it names (match \`exact\`) or the one the product features (\`featured\`). Unknown ids are left out and named in \`not_found\` info messages (HTTP 200). At most ${MAX_LOOKUP_IDS} ids. Needs a UCP-Agent whose profile declares dev.ucp.shopping.catalog.lookup.`,
    auth: auth.apiKey('recommend'),
    body: LookupBody,
    bodyRequired: true,
    missingFields: ['ids'],
    responses: {
      200: { description: 'UCP lookup response (catalog_lookup.json lookup_response), or the UCP error response.', schema: AnyJson },
    },
    errors: NEGOTIATION_ERRORS,
    handler: (ctx, { body }) =>
      negotiated(ctx, CATALOG_LOOKUP, async () => ({
        body: await lookupUcpBusinessCatalog(lookupDeps(ctx), body.ids ?? [], body.filters?.price),
      })),
  });

  r.add({
    method: 'post',
    path: '/ucp/catalog/product',
    tag: TAG,
    summary: 'UCP get product by product or variant id',
    description:
      'UCP `get_product`: the product of one id with its variants (a variant id’s variant first). An id that names nothing is HTTP 200 with the UCP error response (`not_found`, unrecoverable). Needs a UCP-Agent whose profile declares dev.ucp.shopping.catalog.lookup.',
    auth: auth.apiKey('recommend'),
    body: ProductBody,
    bodyRequired: true,
    missingFields: ['id'],
    responses: {
      200: {
        description: 'UCP get-product response (catalog_lookup.json get_product_response), or the UCP error response.',
        schema: AnyJson,
      },
    },
    errors: NEGOTIATION_ERRORS,
    handler: (ctx, { body }) =>
      negotiated(ctx, CATALOG_LOOKUP, async () => ({
        body: await getUcpBusinessProduct(lookupDeps(ctx), body.id ?? '', body.filters?.price),
      })),
  });
}
