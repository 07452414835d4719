import type { JWK } from 'jose';

/**
 * The gateway as a UCP business (overview.md, "Business Profile"): the profile it serves at
 * `/.well-known/ucp`. It speaks one protocol version, 2026-04-08, and declares what is built: the
 * shopping service's REST binding under `${publicBaseUrl}/ucp` and the catalog capabilities (search
 * and lookup) over every merchant the gateway carries. Checkout and order are not declared until they
 * are served; a profile that named them would send platforms to endpoints that do not exist.
 */

/** The protocol version the gateway speaks as a business. */
export const UCP_BUSINESS_VERSION = '2026-04-08';

export const CATALOG_SEARCH = 'dev.ucp.shopping.catalog.search';
export const CATALOG_LOOKUP = 'dev.ucp.shopping.catalog.lookup';

/** The capabilities the business side serves, by name. */
export const BUSINESS_CAPABILITIES = [CATALOG_SEARCH, CATALOG_LOOKUP] as const;
export type BusinessCapability = (typeof BUSINESS_CAPABILITIES)[number];

/** Where the REST binding's paths (`/catalog/search`, …) are served. */
export const ucpBusinessEndpoint = (publicBaseUrl: string) => `${publicBaseUrl.replace(/\/+$/, '')}/ucp`;

const SPEC = `https://ucp.dev/${UCP_BUSINESS_VERSION}`;

const capabilityEntry = (page: string, schema: string) => [
  { version: UCP_BUSINESS_VERSION, spec: `${SPEC}/specification/${page}`, schema: `${SPEC}/schemas/shopping/${schema}` },
];

export interface BusinessProfileInput {
  publicBaseUrl: string;
  /** Public JWKs of the gateway's UCP signing key (UCP_SIGNING_KEY); none when it has none. */
  signingJwks: JWK[];
}

export function businessProfile(input: BusinessProfileInput): Record<string, unknown> {
  const signing_keys = input.signingJwks.map(({ kid, kty, crv, x, y, n, e, alg }) => {
    const out: Record<string, unknown> = { kid, kty, use: 'sig' };
    for (const [k, v] of Object.entries({ crv, x, y, n, e, alg })) if (v !== undefined) out[k] = v;
    return out;
  });
  return {
    ucp: {
      version: UCP_BUSINESS_VERSION,
      services: {
        'dev.ucp.shopping': [
          {
            version: UCP_BUSINESS_VERSION,
            spec: `${SPEC}/specification/overview`,
            transport: 'rest',
            schema: `${SPEC}/services/shopping/rest.openapi.json`,
            endpoint: ucpBusinessEndpoint(input.publicBaseUrl),
          },
        ],
      },
      capabilities: {
        [CATALOG_SEARCH]: capabilityEntry('catalog/search', 'catalog_search.json'),
        [CATALOG_LOOKUP]: capabilityEntry('catalog/lookup', 'catalog_lookup.json'),
      },
      // No checkout yet, so no payment handler to take credentials for (the member is required).
      payment_handlers: {},
    },
    ...(signing_keys.length ? { signing_keys } : {}),
  };
}

/** The `ucp` member of a catalog answer: the version and the one capability the operation used. */
export const catalogUcp = (capability: BusinessCapability) => ({
  version: UCP_BUSINESS_VERSION,
  capabilities: { [capability]: [{ version: UCP_BUSINESS_VERSION }] },
});
