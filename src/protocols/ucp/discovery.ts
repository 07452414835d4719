import type { JWK } from 'jose';
import { z } from 'zod';
import { boundedRequest, OutboundError } from '../../outbound/http';
import { endpointPolicy, parseEndpointUrl, UnsafeEndpointError } from '../../registry/endpoint-safety';
import { withoutNulls } from './without-nulls';

/**
 * UCP discovery (overview.md, "Profile Structure" and "Version Discovery and Negotiation"): the
 * business's profile at `{base}/.well-known/ucp` names its protocol version (older ones it still serves
 * in `supported_versions`, each with a profile of its own), its services and REST endpoint, its
 * capabilities, payment handlers and signing keys. The gateway speaks 2026-04-08 (preferred) and
 * 2026-01-11 (what the reference merchants speak); anything else is refused with a message naming both
 * sides' versions. What is kept on the merchant record is a compact summary (`UcpBusinessSummary`).
 */

/** Versions the gateway speaks, preferred first. */
export const SUPPORTED_UCP_VERSIONS = ['2026-04-08', '2026-01-11'] as const;
export type UcpVersion = (typeof SUPPORTED_UCP_VERSIONS)[number];

export const isSupportedUcpVersion = (v: unknown): v is UcpVersion => SUPPORTED_UCP_VERSIONS.includes(v as UcpVersion);

/** A profile is small; anything larger is not one. */
export const MAX_PROFILE_BYTES = 256 * 1024;

export type UcpDiscoveryFailure = 'profile_unreachable' | 'profile_invalid' | 'version_unsupported';

/** Why discovery failed; `status` is what a registration should answer (4xx: the registrant can fix it). */
export class UcpDiscoveryError extends Error {
  constructor(
    readonly code: UcpDiscoveryFailure,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'UcpDiscoveryError';
  }
}

export class UcpProfileUnreachable extends UcpDiscoveryError {
  constructor(message: string) {
    super('profile_unreachable', message, 424);
    this.name = 'UcpProfileUnreachable';
  }
}

export class UcpProfileInvalid extends UcpDiscoveryError {
  constructor(message: string) {
    super('profile_invalid', message, 422);
    this.name = 'UcpProfileInvalid';
  }
}

export class UcpVersionUnsupported extends UcpDiscoveryError {
  constructor(
    readonly offered: string[],
    readonly supported: readonly string[] = SUPPORTED_UCP_VERSIONS,
  ) {
    super(
      'version_unsupported',
      `the business offers UCP ${offered.length ? offered.join(', ') : '(no version)'}; the gateway speaks UCP ${supported.join(' and ')}`,
      422,
    );
    this.name = 'UcpVersionUnsupported';
  }
}

export type UcpRequestSigning = 'rfc9421' | 'jws-detached' | 'none';

/** What the merchant record keeps (JSON-serializable): enough to call the business without rediscovering. */
export interface UcpBusinessSummary {
  protocol: 'ucp';
  version: UcpVersion;
  /** The profile this summary was read from (the well-known one, or the version-specific one it links). */
  profile_url: string;
  rest_endpoint: string;
  services: Array<{ name: string; version: string; transport: string; endpoint: string | null }>;
  /** Capability names (`dev.ucp.shopping.checkout`, …). */
  capabilities: string[];
  payment_handlers: Array<{ id: string; name: string; version: string | null; instrument_types: string[] }>;
  /** Public keys (JWK) the business signs webhooks and responses with. */
  signing_keys?: JWK[];
  /** How the gateway signs its requests to this business (see `requestSigningFor`). */
  request_signing: UcpRequestSigning;
  catalog_search: boolean;
  catalog_lookup: boolean;
  fetched_at: string;
}

export interface UcpDiscoveryDeps {
  allowPrivateEndpoints: boolean;
  timeoutMs: number;
}

const version = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a YYYY-MM-DD version');
const jwkSchema = z.looseObject({ kid: z.string().min(1), kty: z.string().min(1) });

/** 2026-04-08: registries keyed by reverse-domain name, each an array of entries. */
const Profile0408 = z.looseObject({
  ucp: z.looseObject({
    version,
    supported_versions: z.record(z.string(), z.string()).optional(),
    services: z.record(z.string(), z.array(z.looseObject({ version, transport: z.string(), endpoint: z.string().optional() }))),
    capabilities: z.record(z.string(), z.array(z.looseObject({ version }))).optional(),
    payment_handlers: z.record(
      z.string(),
      z.array(
        z.looseObject({
          id: z.string().min(1),
          version,
          available_instruments: z.array(z.looseObject({ type: z.string() })).optional(),
        }),
      ),
    ),
  }),
  signing_keys: z.array(jwkSchema).optional(),
});

/** 2026-01-11: services keyed by name with a binding per transport; capabilities and handlers are arrays. */
const Profile0111 = z.looseObject({
  ucp: z.looseObject({
    version,
    services: z.record(
      z.string(),
      z.looseObject({
        version,
        spec: z.string(),
        rest: z.looseObject({ schema: z.string(), endpoint: z.string() }).optional(),
        mcp: z.looseObject({ endpoint: z.string() }).optional(),
        a2a: z.looseObject({ endpoint: z.string() }).optional(),
      }),
    ),
    capabilities: z.array(z.looseObject({ name: z.string(), version })),
  }),
  payment: z
    .looseObject({
      handlers: z.array(z.looseObject({ id: z.string().min(1), name: z.string().min(1), version: version.optional() })).optional(),
    })
    .optional(),
  signing_keys: z.array(jwkSchema).optional(),
});

const SHOPPING = 'dev.ucp.shopping';

async function fetchProfile(deps: UcpDiscoveryDeps, url: string): Promise<unknown> {
  let res;
  try {
    res = await boundedRequest(url, {
      timeoutMs: deps.timeoutMs,
      maxBytes: MAX_PROFILE_BYTES,
      // Profiles must not redirect (overview.md, "Hosting"); a 3xx is answered as a bad status below.
      maxRedirects: 0,
      policy: endpointPolicy(deps.allowPrivateEndpoints),
      headers: { accept: 'application/json' },
    });
  } catch (err) {
    if (err instanceof OutboundError) {
      if (err.reason === 'too_large') throw new UcpProfileInvalid(`the UCP profile at ${url} is larger than ${MAX_PROFILE_BYTES} bytes`);
      throw new UcpProfileUnreachable(`the UCP profile at ${url} could not be fetched (${err.reason}: ${err.message})`);
    }
    throw err;
  }
  if (res.status !== 200) {
    const why = res.status >= 300 && res.status < 400 ? 'a redirect (profiles must be served without one)' : `HTTP ${res.status}`;
    throw new UcpProfileUnreachable(`the UCP profile at ${url} answered ${why}`);
  }
  try {
    return withoutNulls(JSON.parse(res.body.toString('utf8')));
  } catch {
    throw new UcpProfileInvalid(`the UCP profile at ${url} is not JSON`);
  }
}

function zodProblem(err: z.ZodError): string {
  const first = err.issues[0];
  return first ? `${first.path.join('.') || '(root)'}: ${first.message}` : 'invalid';
}

function checkedEndpoint(raw: string, deps: UcpDiscoveryDeps, what: string): string {
  try {
    parseEndpointUrl(raw, endpointPolicy(deps.allowPrivateEndpoints));
  } catch (err) {
    if (err instanceof UnsafeEndpointError) throw new UcpProfileInvalid(`${what} ${raw}: ${err.message}`);
    throw err;
  }
  return raw.replace(/\/+$/, '');
}

/**
 * How the gateway signs requests to a business: the first release's REST binding declares a required
 * `Request-Signature` (a detached JWS); from 2026-04-08 on, a business that publishes signing keys takes
 * part in HTTP Message Signatures, so requests to it carry RFC 9421 signatures. Otherwise none.
 */
export function requestSigningFor(v: UcpVersion, signingKeys: JWK[] | undefined): UcpRequestSigning {
  if (v === '2026-01-11') return 'jws-detached';
  return signingKeys && signingKeys.length > 0 ? 'rfc9421' : 'none';
}

function summarize0408(raw: unknown, url: string, deps: UcpDiscoveryDeps): UcpBusinessSummary {
  const parsed = Profile0408.safeParse(raw);
  if (!parsed.success)
    throw new UcpProfileInvalid(`the UCP profile at ${url} is not a 2026-04-08 business profile (${zodProblem(parsed.error)})`);
  const p = parsed.data;
  const services = Object.entries(p.ucp.services).flatMap(([name, entries]) =>
    entries.map((e) => ({ name, version: e.version, transport: e.transport, endpoint: e.endpoint ?? null })),
  );
  const rest = services.find((s) => s.name === SHOPPING && s.transport === 'rest' && s.endpoint);
  if (!rest?.endpoint) throw new UcpProfileInvalid(`the UCP profile at ${url} declares no REST endpoint for ${SHOPPING}`);
  const capabilities = Object.keys(p.ucp.capabilities ?? {});
  const signing_keys = p.signing_keys as JWK[] | undefined;
  return {
    protocol: 'ucp',
    version: '2026-04-08',
    profile_url: url,
    rest_endpoint: checkedEndpoint(rest.endpoint, deps, 'the REST endpoint'),
    services,
    capabilities,
    payment_handlers: Object.entries(p.ucp.payment_handlers).flatMap(([name, entries]) =>
      entries.map((h) => ({ id: h.id, name, version: h.version, instrument_types: (h.available_instruments ?? []).map((i) => i.type) })),
    ),
    ...(signing_keys ? { signing_keys } : {}),
    request_signing: requestSigningFor('2026-04-08', signing_keys),
    catalog_search: capabilities.includes('dev.ucp.shopping.catalog.search'),
    catalog_lookup: capabilities.includes('dev.ucp.shopping.catalog.lookup'),
    fetched_at: new Date().toISOString(),
  };
}

function summarize0111(raw: unknown, url: string, deps: UcpDiscoveryDeps): UcpBusinessSummary {
  const parsed = Profile0111.safeParse(raw);
  if (!parsed.success)
    throw new UcpProfileInvalid(`the UCP profile at ${url} is not a 2026-01-11 business profile (${zodProblem(parsed.error)})`);
  const p = parsed.data;
  const services = Object.entries(p.ucp.services).flatMap(([name, s]) =>
    (['rest', 'mcp', 'a2a'] as const).flatMap((t) => (s[t] ? [{ name, version: s.version, transport: t, endpoint: s[t].endpoint }] : [])),
  );
  const rest = p.ucp.services[SHOPPING]?.rest;
  if (!rest) throw new UcpProfileInvalid(`the UCP profile at ${url} declares no REST binding for ${SHOPPING}`);
  const signing_keys = p.signing_keys as JWK[] | undefined;
  return {
    protocol: 'ucp',
    version: '2026-01-11',
    profile_url: url,
    rest_endpoint: checkedEndpoint(rest.endpoint, deps, 'the REST endpoint'),
    services,
    capabilities: p.ucp.capabilities.map((c) => c.name),
    payment_handlers: (p.payment?.handlers ?? []).map((h) => ({
      id: h.id,
      name: h.name,
      version: h.version ?? null,
      instrument_types: [],
    })),
    ...(signing_keys ? { signing_keys } : {}),
    request_signing: requestSigningFor('2026-01-11', signing_keys),
    catalog_search: false,
    catalog_lookup: false,
    fetched_at: new Date().toISOString(),
  };
}

const summarize = (v: UcpVersion, raw: unknown, url: string, deps: UcpDiscoveryDeps) =>
  v === '2026-04-08' ? summarize0408(raw, url, deps) : summarize0111(raw, url, deps);

/**
 * Reads `{baseUrl}/.well-known/ucp`, negotiates the version (the newest both sides speak: the profile's
 * own `version`, else a version-specific profile from `supported_versions`) and returns the summary.
 * Throws `UcpProfileUnreachable`, `UcpProfileInvalid` or `UcpVersionUnsupported`.
 */
export async function discoverBusiness(deps: UcpDiscoveryDeps, baseUrl: string): Promise<UcpBusinessSummary> {
  let wellKnown: string;
  try {
    const base = parseEndpointUrl(baseUrl, endpointPolicy(deps.allowPrivateEndpoints));
    wellKnown = new URL('/.well-known/ucp', base).toString();
  } catch (err) {
    if (err instanceof UnsafeEndpointError) throw new UcpProfileInvalid(`the business URL ${baseUrl}: ${err.message}`);
    throw err;
  }
  const raw = await fetchProfile(deps, wellKnown);
  const head = z
    .looseObject({ ucp: z.looseObject({ version: z.string(), supported_versions: z.record(z.string(), z.string()).optional() }) })
    .safeParse(raw);
  if (!head.success) throw new UcpProfileInvalid(`the document at ${wellKnown} is not a UCP profile (${zodProblem(head.error)})`);
  const current = head.data.ucp.version;
  const older = head.data.ucp.supported_versions ?? {};
  for (const v of SUPPORTED_UCP_VERSIONS) {
    if (current === v) return summarize(v, raw, wellKnown, deps);
    const linked = older[v];
    if (linked) {
      const url = checkedEndpoint(linked, deps, `the ${v} profile`);
      const versioned = await fetchProfile(deps, url);
      const got = (versioned as { ucp?: { version?: unknown } } | null)?.ucp?.version;
      if (got !== v) throw new UcpProfileInvalid(`the profile ${url} linked for UCP ${v} declares version ${String(got)}`);
      return summarize(v, versioned, url, deps);
    }
  }
  throw new UcpVersionUnsupported([current, ...Object.keys(older)]);
}

/** Reads a summary back from the merchant record (null when it is not one this code wrote). */
export function readBusinessSummary(profile: Record<string, unknown> | null): UcpBusinessSummary | null {
  if (!profile || profile.protocol !== 'ucp' || !isSupportedUcpVersion(profile.version) || typeof profile.rest_endpoint !== 'string') {
    return null;
  }
  return profile as unknown as UcpBusinessSummary;
}
