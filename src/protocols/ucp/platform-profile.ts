import type { JWK } from 'jose';
import type { UcpVersion } from './discovery';

/**
 * The gateway's own UCP platform profile (overview.md, "Platform Profile"): the document every request's
 * `UCP-Agent` header points to. Businesses read it to negotiate capabilities (checkout with fulfillment,
 * order events) and to find the keys the gateway signs requests with; the order capability's `config`
 * carries the webhook URL businesses post order events to. Served by the API at
 * `${publicBaseUrl}/ucp/platform-profile`; this module only builds it.
 */

export interface PlatformProfileInput {
  /** The gateway's public base URL (no trailing slash needed). */
  publicBaseUrl: string;
  version: UcpVersion;
  /** Public JWKs of the gateway's UCP signing keys (`UcpSigner.publicJwk`: EC P-256/P-384). */
  signingJwks: JWK[];
  /**
   * 2026-04-08 payment handler registry the platform declares (keyed by handler name). The gateway does
   * not run a handler itself (the agent brings a credential for one of the business's handlers), so
   * none by default.
   */
  paymentHandlers?: Record<string, Array<Record<string, unknown>>>;
}

/** Where businesses POST order events (the lead's route). */
export const orderWebhookUrl = (publicBaseUrl: string) => `${publicBaseUrl.replace(/\/+$/, '')}/ucp/webhooks/orders`;

/** Where the profile itself is served. */
export const platformProfileUrl = (publicBaseUrl: string) => `${publicBaseUrl.replace(/\/+$/, '')}/ucp/platform-profile`;

function publicOnly(jwk: JWK): JWK {
  // Only public members go out, whatever was passed in.
  const { kid, kty, crv, x, y, n, e, alg } = jwk;
  const out: JWK = { kid, kty, use: 'sig' };
  for (const [k, v] of Object.entries({ crv, x, y, n, e, alg })) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

export function platformProfile(input: PlatformProfileInput): Record<string, unknown> {
  const v = input.version;
  const webhook_url = orderWebhookUrl(input.publicBaseUrl);
  const signing_keys = input.signingJwks.map(publicOnly);
  if (v === '2026-01-11') {
    // The first release: services keyed by name (a platform has no endpoint of its own to declare),
    // capabilities as an array of named entries.
    const cap = (name: string, page: string, schema: string, extra: Record<string, unknown> = {}) => ({
      name,
      version: v,
      spec: `https://ucp.dev/specification/${page}`,
      schema: `https://ucp.dev/schemas/shopping/${schema}`,
      ...extra,
    });
    return {
      ucp: {
        version: v,
        services: { 'dev.ucp.shopping': { version: v, spec: 'https://ucp.dev/specification/overview' } },
        capabilities: [
          cap('dev.ucp.shopping.checkout', 'checkout', 'checkout.json'),
          cap('dev.ucp.shopping.fulfillment', 'fulfillment', 'fulfillment.json', { extends: 'dev.ucp.shopping.checkout' }),
          cap('dev.ucp.shopping.order', 'order', 'order.json', { config: { webhook_url } }),
        ],
      },
      signing_keys,
    };
  }
  const entry = (page: string, schema: string, extra: Record<string, unknown> = {}) => [
    { version: v, spec: `https://ucp.dev/${v}/specification/${page}`, schema: `https://ucp.dev/${v}/schemas/shopping/${schema}`, ...extra },
  ];
  return {
    ucp: {
      version: v,
      services: {
        'dev.ucp.shopping': [
          {
            version: v,
            spec: `https://ucp.dev/${v}/specification/overview`,
            transport: 'rest',
            schema: `https://ucp.dev/${v}/services/shopping/rest.openapi.json`,
          },
        ],
      },
      capabilities: {
        'dev.ucp.shopping.checkout': entry('checkout', 'checkout.json'),
        'dev.ucp.shopping.fulfillment': entry('fulfillment', 'fulfillment.json', { extends: 'dev.ucp.shopping.checkout' }),
        'dev.ucp.shopping.order': entry('order', 'order.json', { config: { webhook_url } }),
        'dev.ucp.shopping.catalog.search': [
          {
            version: v,
            spec: `https://ucp.dev/${v}/specification/catalog/search`,
            schema: `https://ucp.dev/${v}/schemas/shopping/catalog_search.json`,
          },
        ],
      },
      payment_handlers: input.paymentHandlers ?? {},
    },
    signing_keys,
  };
}

/**
 * The profile URL to advertise to a business at `version`. A profile declares one protocol version and a
 * business checks the platform's against its own, so a 2026-01-11 business is pointed at the
 * 2026-01-11 profile, served one level below the current one (`…/ucp/platform-profile/2026-01-11`).
 */
export function platformProfileUrlFor(profileUrl: string, version: UcpVersion): string {
  const base = profileUrl.replace(/\/+$/, '');
  return version === '2026-04-08' ? base : `${base}/${version}`;
}
