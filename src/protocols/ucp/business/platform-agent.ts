import { z } from 'zod';
import { boundedRequest, OutboundError } from '../../../outbound/http';
import { endpointPolicy, parseEndpointUrl, UnsafeEndpointError } from '../../../registry/endpoint-safety';
import { MAX_PROFILE_BYTES } from '../discovery';
import { withoutNulls } from '../without-nulls';
import { UCP_BUSINESS_VERSION, type BusinessCapability } from './profile';

/**
 * The platform side of a request to the gateway's UCP business surface (overview.md, "Platform
 * Advertisement on Request" and "Negotiation Protocol"): every request names its platform's profile in
 * `UCP-Agent: profile="<url>"` (an RFC 8941 dictionary). The business MUST fetch and validate that
 * profile (unless cached), check its protocol version on every request and intersect capabilities. The
 * fetch goes through the outbound guard (no private address unless ALLOW_PRIVATE_ENDPOINTS, no
 * redirect, a deadline, a size cap) and its result is cached in a bounded map, as "Fetching" asks: a
 * fixed footprint however many profile URLs come in.
 */

/** A negotiation failure and the HTTP status its code has in the spec's table ("Error Codes"). */
export class UcpNegotiationError extends Error {
  constructor(
    readonly code:
      'invalid_profile_url' | 'profile_unreachable' | 'profile_malformed' | 'version_unsupported' | 'capabilities_incompatible',
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'UcpNegotiationError';
  }
}

/** The profile URL of a `UCP-Agent` header (the `profile` member, an sf-string), or null when there is none. */
export function profileUrlOf(header: string | undefined): string | null {
  if (!header || header.length > 2048) return null;
  // Dictionary members are `key=value` separated by commas; only `profile` matters here.
  for (const member of header.split(/,(?=\s*[a-z*][a-z0-9_.*-]*\s*=)/)) {
    const m = /^\s*profile\s*=\s*"((?:[^"\\]|\\["\\])*)"\s*(;.*)?$/.exec(member);
    if (m) return m[1]!.replace(/\\(["\\])/g, '$1');
  }
  return null;
}

const PlatformProfile = z.looseObject({
  ucp: z.looseObject({
    version: z.string(),
    capabilities: z.record(z.string(), z.array(z.looseObject({ version: z.string() }))).optional(),
  }),
});

export interface PlatformSummary {
  profile_url: string;
  version: string;
  /** Capability name → the versions the platform declares for it. */
  capabilities: Record<string, string[]>;
}

export interface PlatformAgentDeps {
  allowPrivateEndpoints: boolean;
  timeoutMs: number;
}

/** Profiles are stable identities; the spec's floor is 60 s. */
const TTL_MS = 5 * 60_000;
/** A fixed footprint whatever the number of profile URLs (least recently used goes first). */
const MAX_ENTRIES = 256;

/** Fetches and caches platform profiles for the business surface; one per API process. */
export class PlatformProfiles {
  private readonly entries = new Map<string, { at: number; summary: PlatformSummary }>();

  constructor(private readonly deps: PlatformAgentDeps) {}

  async resolve(url: string): Promise<PlatformSummary> {
    const hit = this.entries.get(url);
    if (hit && Date.now() - hit.at < TTL_MS) {
      this.entries.delete(url);
      this.entries.set(url, hit);
      return hit.summary;
    }
    const summary = await this.fetch(url);
    this.entries.delete(url);
    this.entries.set(url, { at: Date.now(), summary });
    while (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    return summary;
  }

  private async fetch(url: string): Promise<PlatformSummary> {
    const policy = endpointPolicy(this.deps.allowPrivateEndpoints);
    try {
      parseEndpointUrl(url, policy);
    } catch (err) {
      if (err instanceof UnsafeEndpointError)
        throw new UcpNegotiationError('invalid_profile_url', `UCP-Agent profile ${url}: ${err.message}`, 400);
      throw err;
    }
    let res;
    try {
      res = await boundedRequest(url, {
        timeoutMs: this.deps.timeoutMs,
        maxBytes: MAX_PROFILE_BYTES,
        maxRedirects: 0,
        policy,
        headers: { accept: 'application/json' },
      });
    } catch (err) {
      if (err instanceof OutboundError) {
        if (err.reason === 'unsafe_endpoint')
          throw new UcpNegotiationError('invalid_profile_url', `UCP-Agent profile ${url}: ${err.message}`, 400);
        if (err.reason === 'too_large')
          throw new UcpNegotiationError(
            'profile_malformed',
            `the platform profile at ${url} is larger than ${MAX_PROFILE_BYTES} bytes`,
            422,
          );
        throw new UcpNegotiationError('profile_unreachable', `the platform profile at ${url} could not be fetched (${err.reason})`, 424);
      }
      throw err;
    }
    if (res.status !== 200)
      throw new UcpNegotiationError('profile_unreachable', `the platform profile at ${url} answered HTTP ${res.status}`, 424);
    let raw: unknown;
    try {
      raw = withoutNulls(JSON.parse(res.body.toString('utf8')));
    } catch {
      throw new UcpNegotiationError('profile_malformed', `the platform profile at ${url} is not JSON`, 422);
    }
    const parsed = PlatformProfile.safeParse(raw);
    if (!parsed.success) throw new UcpNegotiationError('profile_malformed', `the document at ${url} is not a UCP platform profile`, 422);
    const capabilities: Record<string, string[]> = {};
    for (const [name, entries] of Object.entries(parsed.data.ucp.capabilities ?? {})) capabilities[name] = entries.map((e) => e.version);
    return { profile_url: url, version: parsed.data.ucp.version, capabilities };
  }
}

/**
 * The negotiation one catalog request needs: a readable `UCP-Agent`, a platform profile at the version
 * the gateway speaks (older versions are refused: the catalog capabilities first appear in 2026-04-08),
 * and the operation's capability in both profiles at that version ("Intersection Algorithm").
 */
export async function negotiate(
  profiles: PlatformProfiles,
  header: string | undefined,
  capability: BusinessCapability,
): Promise<PlatformSummary> {
  const url = profileUrlOf(header);
  if (!url) {
    throw new UcpNegotiationError(
      'invalid_profile_url',
      'UCP-Agent is missing or malformed: send UCP-Agent: profile="<https URL of your platform profile>".',
      400,
    );
  }
  const platform = await profiles.resolve(url);
  if (platform.version !== UCP_BUSINESS_VERSION) {
    throw new UcpNegotiationError(
      'version_unsupported',
      `Protocol version ${platform.version} is not supported. This business supports version ${UCP_BUSINESS_VERSION}.`,
      422,
    );
  }
  if (!(platform.capabilities[capability] ?? []).includes(UCP_BUSINESS_VERSION)) {
    throw new UcpNegotiationError(
      'capabilities_incompatible',
      `The platform profile does not declare ${capability} at version ${UCP_BUSINESS_VERSION}.`,
      200,
    );
  }
  return platform;
}

/**
 * The answer to a failed negotiation. Discovery and version failures are transport errors (overview.md,
 * "Error Handling", REST binding): the spec's status with `{code, content, continue_url}`, here inside
 * the gateway's `{error, message}` envelope (the same code and text), so a UCP platform and a client of
 * the gateway's API both read it. A capability the platform lacks is a business outcome: HTTP 200 with
 * the UCP error response (types/error_response.json).
 */
export function negotiationErrorBody(err: UcpNegotiationError, continueUrl: string): Record<string, unknown> {
  if (err.code === 'capabilities_incompatible') {
    return {
      ucp: { version: UCP_BUSINESS_VERSION, status: 'error', capabilities: {} },
      messages: [{ type: 'error', code: err.code, content: err.message, severity: 'unrecoverable' }],
      continue_url: continueUrl,
    };
  }
  return { error: err.code, message: err.message, code: err.code, content: err.message, continue_url: continueUrl };
}
