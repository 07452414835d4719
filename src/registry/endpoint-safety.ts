import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Endpoint safety (DESIGN §6): the gateway calls merchant and agent URLs that strangers register,
 * so they must be https and must not reach private, loopback or link-local networks. The address
 * check runs on what DNS actually returns, at registration and again on every connection (redirects
 * included), so a name that later re-points at 10.0.0.1 is refused at connect time too.
 * `ALLOW_PRIVATE_ENDPOINTS` lifts both rules (local development and tests with loopback agents).
 */

export class UnsafeEndpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeEndpointError';
  }
}

/** True only for globally routable unicast addresses. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'unicast';
}

/** What an outbound call may reach: the schemes, and which resolved addresses. */
export interface EndpointPolicy {
  schemes: string[];
  /** null: any address, so names need not resolve when registered (the flag is on). */
  addressAllowed: ((address: string) => boolean) | null;
}

export function endpointPolicy(allowPrivate: boolean): EndpointPolicy {
  return allowPrivate
    ? { schemes: ['https:', 'http:'], addressAllowed: null }
    : { schemes: ['https:'], addressAllowed: isPublicAddress };
}

export function parseEndpointUrl(raw: string, policy: EndpointPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeEndpointError('not an absolute URL');
  }
  if (!policy.schemes.includes(url.protocol)) throw new UnsafeEndpointError(`scheme ${url.protocol.replace(':', '')} is not allowed; use https`);
  if (url.username || url.password) throw new UnsafeEndpointError('credentials in the URL are not allowed');
  return url;
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

function resolveAll(host: string): Promise<LookupAddress[]> {
  if (isIP(host)) return Promise.resolve([{ address: host, family: isIP(host) }]);
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );
}

/** Checks scheme and every address the host resolves to; returns the parsed URL. */
export async function assertSafeEndpoint(raw: string, policy: EndpointPolicy): Promise<URL> {
  const url = parseEndpointUrl(raw, policy);
  const allowed = policy.addressAllowed;
  if (!allowed) return url;
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(hostOf(url));
  } catch {
    throw new UnsafeEndpointError(`host ${url.hostname} does not resolve`);
  }
  const blocked = addresses.find((a) => !allowed(a.address));
  if (blocked) throw new UnsafeEndpointError(`host ${url.hostname} resolves to a non-public address (${blocked.address})`);
  return url;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http(s) requests that refuses non-public addresses at connect time, so the
 * address checked is the address connected to (no DNS-rebinding window).
 */
export function guardedLookup(policy: EndpointPolicy) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      const allowed = policy.addressAllowed;
      const blocked = allowed ? list.find((a) => !allowed(a.address)) : undefined;
      if (blocked) {
        return callback(Object.assign(new UnsafeEndpointError(`${hostname} resolves to a non-public address (${blocked.address})`), { code: 'EUNSAFE' }), []);
      }
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
