import { describe, expect, it } from 'vitest';
import { assertSafeEndpoint, endpointPolicy, isPublicAddress, UnsafeEndpointError } from '../../src/registry/endpoint-safety';

/**
 * Hostile address forms: every one must be refused. Many embed a private IPv4 address inside an IPv6
 * form (IPv4-compatible, mapped, SIIT, NAT64, 6to4, Teredo); the rest are non-global IPv6 ranges.
 */
const hostileAddresses: Array<[string, string]> = [
  ['::7f00:1', 'IPv4-compatible 127.0.0.1'],
  ['::127.0.0.1', 'IPv4-compatible 127.0.0.1, dotted'],
  ['::a9fe:a9fe', 'IPv4-compatible 169.254.169.254 (cloud metadata)'],
  ['::169.254.169.254', 'IPv4-compatible metadata, dotted'],
  ['::a00:1', 'IPv4-compatible 10.0.0.1'],
  ['::c0a8:1', 'IPv4-compatible 192.168.0.1'],
  ['::ac10:1', 'IPv4-compatible 172.16.0.1'],
  ['::6440:1', 'IPv4-compatible 100.64.0.1 (CGNAT)'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::0.0.0.0', 'IPv4-compatible 0.0.0.0'],
  ['0:0:0:0:0:0:0:1', 'loopback, full form'],
  ['0000:0000:0000:0000:0000:0000:7f00:0001', 'IPv4-compatible loopback, full form with zeros'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata'],
  ['::ffff:10.0.0.1', 'IPv4-mapped 10/8'],
  ['0:0:0:0:0:ffff:c0a8:101', 'IPv4-mapped 192.168.1.1, full form'],
  ['::ffff:0:7f00:1', 'SIIT (RFC 6145) loopback'],
  ['::ffff:0:a00:1', 'SIIT 10.0.0.1'],
  ['64:ff9b::7f00:1', 'NAT64 127.0.0.1'],
  ['64:ff9b::127.0.0.1', 'NAT64 127.0.0.1, dotted'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 metadata'],
  ['64:ff9b::a00:1', 'NAT64 10.0.0.1'],
  ['64:ff9b:1::a00:1', 'NAT64 local-use prefix'],
  ['2002:7f00:1::', '6to4 of 127.0.0.1'],
  ['2002:a9fe:a9fe::1', '6to4 of metadata'],
  ['2002:a00:1::1', '6to4 of 10.0.0.1'],
  ['2002:c0a8:101:0:0:0:0:1', '6to4 of 192.168.1.1'],
  ['2001:0:7f00:1::', 'Teredo with a loopback server'],
  ['2001:0:808:808::80ff:f5fe', 'Teredo with a 127.0.0.1 client (inverted)'],
  ['2001:0:808:808:0:0:5601:5601', 'Teredo with a 169.254.169.254 client (inverted)'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo (RFC 4380 example: documentation client)'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['febf:ffff::1', 'link-local, top of range'],
  ['fec0::1', 'deprecated site-local'],
  ['fc00::1', 'unique local'],
  ['fd12:3456:789a::1', 'unique local (fd00::/8)'],
  ['ff02::1', 'multicast'],
  ['ff05::2', 'site multicast'],
  ['100::1', 'discard prefix'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation (RFC 9637)'],
  ['2001:2::1', 'benchmarking'],
  ['2001:10::1', 'ORCHID'],
  ['5f00::1', 'segment routing'],
  ['4000::1', 'outside 2000::/3 (unassigned)'],
  ['e000::1', 'outside 2000::/3 (unassigned, high)'],
  ['1::1', 'outside 2000::/3 (low)'],
  ['2130706433', 'decimal IPv4 (not a canonical answer)'],
  ['0177.0.0.1', 'octal IPv4'],
  ['0x7f.0.0.1', 'hex IPv4'],
  ['127.1', 'short IPv4'],
  ['255.255.255.255', 'broadcast'],
  ['198.18.0.1', 'benchmarking IPv4'],
  ['192.0.2.1', 'TEST-NET-1'],
  ['240.0.0.1', 'class E'],
];

describe('hostile address forms (IPv6 embedding IPv4, non-global ranges, odd notations)', () => {
  it(`refuses all ${hostileAddresses.length} forms`, () => {
    expect(hostileAddresses.length).toBeGreaterThanOrEqual(40);
    const accepted = hostileAddresses.filter(([a]) => isPublicAddress(a)).map(([a, why]) => `${a} (${why})`);
    expect(accepted).toEqual([]);
  });

  it('still accepts global unicast, including embedded forms that carry a public IPv4 address', () => {
    for (const a of [
      '8.8.8.8',
      '1.1.1.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001:80b::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
    ]) {
      expect(isPublicAddress(a), a).toBe(true);
    }
  });

  it.each([
    'https://[::127.0.0.1]/x',
    'https://[::7f00:1]/x',
    'https://[0:0:0:0:0:0:127.0.0.1]/x',
    'https://[64:ff9b::127.0.0.1]/x',
    'https://[2002:7f00:1::]/x',
    'https://[::ffff:0:127.0.0.1]/x',
    'https://2130706433/x',
    'https://0x7f000001/x',
    'https://0177.0.0.1/x',
    'https://127.1/x',
    'https://１２７.０.０.１/x',
  ])('the URL %s is refused before any connection', async (url) => {
    await expect(assertSafeEndpoint(url, endpointPolicy(false))).rejects.toBeInstanceOf(UnsafeEndpointError);
  });
});
