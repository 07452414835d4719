import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Endpoint safety (docs/CONTRACT.md#endpoint-safety): the gateway calls merchant and agent URLs that strangers register,
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

/** Native IPv6 global unicast (RFC 4291): everything else (ULA, link-local, multicast, ::/8 …) is refused. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

const v4FromWords = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

/**
 * The IPv4 addresses an IPv6 address carries, for every form that reaches an IPv4 host through it:
 * IPv4-compatible `::a.b.c.d` (::/96, deprecated but still routed to the IPv4 host by some stacks),
 * IPv4-mapped `::ffff:a.b.c.d`, SIIT `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96` (and the local-use
 * `64:ff9b:1::/48`), 6to4 `2002:AABB:CCDD::/16` and Teredo `2001:0::/32` (server in bits 32–63, the
 * client's address inverted in the last 32 bits). null: the address embeds none.
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const w = address.parts;
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  if (zero(0, 6)) return [v4FromWords(w[6]!, w[7]!)]; // ::/96 (also :: and ::1, judged as 0.0.0.x)
  if (zero(0, 5) && w[5] === 0xffff) return [v4FromWords(w[6]!, w[7]!)]; // ::ffff:0:0/96
  if (zero(0, 4) && w[4] === 0xffff && w[5] === 0) return [v4FromWords(w[6]!, w[7]!)]; // ::ffff:0:0:0/96
  if (w[0] === 0x64 && w[1] === 0xff9b) return [v4FromWords(w[6]!, w[7]!)]; // 64:ff9b::/96 and 64:ff9b:1::/48
  if (w[0] === 0x2002) return [v4FromWords(w[1]!, w[2]!)]; // 6to4
  if (w[0] === 0x2001 && w[1] === 0) return [v4FromWords(w[2]!, w[3]!), v4FromWords(w[6]! ^ 0xffff, w[7]! ^ 0xffff)]; // Teredo
  return null;
}

/**
 * True only for globally routable unicast addresses, decided by an allow-list: IPv4 whose ipaddr.js
 * range is `unicast` (every private, loopback, link-local, CGNAT, reserved, documentation, multicast
 * and broadcast range is named otherwise), native IPv6 inside 2000::/3 whose range is `unicast`, and
 * IPv6 forms that embed IPv4 only when every embedded IPv4 address is itself public.
 */
export function isPublicAddress(address: string): boolean {
  // Only the canonical dotted-quad and IPv6 text forms: DNS answers are canonical, and a literal in
  // another notation (decimal, octal, hex, short) is not an address this check should interpret.
  if (!ipaddr.IPv4.isValidFourPartDecimal(address) && !(ipaddr.IPv6.isValid(address) && address.includes(':'))) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.zoneId) return false;
  const embedded = embeddedIPv4(v6);
  if (embedded) return embedded.every((v4) => v4.range() === 'unicast');
  return v6.match(GLOBAL_UNICAST_V6) && v6.range() === 'unicast';
}

/** What an outbound call may reach: the schemes, and which resolved addresses. */
export interface EndpointPolicy {
  schemes: string[];
  /** null: any address, so names need not resolve when registered (the flag is on). */
  addressAllowed: ((address: string) => boolean) | null;
}

export function endpointPolicy(allowPrivate: boolean): EndpointPolicy {
  return allowPrivate ? { schemes: ['https:', 'http:'], addressAllowed: null } : { schemes: ['https:'], addressAllowed: isPublicAddress };
}

export function parseEndpointUrl(raw: string, policy: EndpointPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeEndpointError('not an absolute URL');
  }
  if (!policy.schemes.includes(url.protocol))
    throw new UnsafeEndpointError(`scheme ${url.protocol.replace(':', '')} is not allowed; use https`);
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
        return callback(
          Object.assign(new UnsafeEndpointError(`${hostname} resolves to a non-public address (${blocked.address})`), { code: 'EUNSAFE' }),
          [],
        );
      }
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
