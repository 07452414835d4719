import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { startLoopback } from './helpers/loopback';
import {
  assertSafeEndpoint,
  endpointPolicy,
  guardedLookup,
  isPublicAddress,
  UnsafeEndpointError,
  type EndpointPolicy,
} from '../src/registry/endpoint-safety';
import { boundedRequest, OutboundError } from '../src/outbound/http';

/** Endpoint safety (docs/CONTRACT.md#endpoint-safety) with ALLOW_PRIVATE_ENDPOINTS off (the default). */

let api: TestApi;
let dev: Onboarded;

beforeAll(async () => {
  api = await startTestApi({ withTemporal: false, env: { ALLOW_PRIVATE_ENDPOINTS: 'false' } });
  dev = await onboard(api.url);
});
afterAll(() => api.close());

const uid = () => `safe-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const post = (path: string, body: unknown) => call(api.url, 'POST', path, { token: dev.apiKey, body });

const refused = [
  'https://127.0.0.1/hook',
  'https://10.0.0.1/hook',
  'https://169.254.169.254/latest/meta-data',
  'https://[::1]/hook',
  'https://localhost/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://0.0.0.0/hook',
  // IPv6 forms that embed a private IPv4 address
  'https://[::127.0.0.1]/hook',
  'https://[::a9fe:a9fe]/latest/meta-data',
  'https://[64:ff9b::a00:1]/hook',
  'https://[2002:c0a8:101::1]/hook',
];

describe('the guard refuses private, loopback and link-local endpoints', () => {
  it.each(refused)('merchant agent_endpoint %s → 400 invalid_endpoint', async (url) => {
    const merchant_id = uid();
    const res = await post('/v1/merchant/register', { merchant_id, agent_endpoint: url });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_endpoint', fields: ['agent_endpoint'] });
    expect(res.body.message).toMatch(/non-public address/);
    expect(
      await api.db.selectFrom('merchants').select('merchant_id').where('merchant_id', '=', merchant_id).executeTakeFirst(),
    ).toBeUndefined();
  });

  it('plain http is refused even for a public address', async () => {
    const res = await post('/v1/merchant/register', { merchant_id: uid(), agent_endpoint: 'http://93.184.216.34/hook' });
    expect(res.body).toMatchObject({ error: 'invalid_endpoint', fields: ['agent_endpoint'] });
    expect(res.body.message).toMatch(/use https/);
  });

  it('commerce agent endpoints, card URLs and the interfaces inside cards are guarded too', async () => {
    const agent = await post('/v1/agents/register', { agent_id: uid(), agent_type: 'payment', endpoint: 'https://10.0.0.1/a2a' });
    expect(agent.body).toMatchObject({ error: 'invalid_endpoint', fields: ['endpoint'] });

    const before = await startLoopback((_req, res) => res.end('{}'));
    try {
      const byUrl = await post('/v1/agents/import-card', {
        agent_card_url: `https://127.0.0.1:${before.port}/.well-known/agent-card.json`,
      });
      expect(byUrl.status).toBe(400);
      expect(byUrl.body).toMatchObject({ error: 'invalid_endpoint', fields: ['agent_card_url'] });
      expect(before.requests).toHaveLength(0); // refused before any connection
    } finally {
      await before.close();
    }

    const card = {
      name: 'Sneaky',
      description: 'd',
      version: '1',
      protocolVersion: '0.3.0',
      url: 'https://169.254.169.254/a2a',
      capabilities: {},
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
    };
    const inline = await post('/v1/agents/import-card', { agent_card: card });
    expect(inline.body).toMatchObject({ error: 'invalid_endpoint', fields: ['agent_card.url'] });
  });
});

describe('address classification and connect-time checks', () => {
  it('only global unicast addresses are public', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fc00::1',
      '::ffff:10.0.0.1',
      '224.0.0.1',
      'not-an-ip',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPublicAddress(a), a).toBe(true);
  });

  it('a name is judged by what it resolves to; the flag lifts the check and allows http', async () => {
    await expect(assertSafeEndpoint('https://localhost/x', endpointPolicy(false))).rejects.toBeInstanceOf(UnsafeEndpointError);
    await expect(assertSafeEndpoint('https://no-such-host.invalid/x', endpointPolicy(false))).rejects.toThrow(/does not resolve/);
    await expect(assertSafeEndpoint('http://localhost/x', endpointPolicy(true))).resolves.toBeInstanceOf(URL);
    await expect(assertSafeEndpoint('https://user:pw@93.184.216.34/x', endpointPolicy(false))).rejects.toThrow(/credentials/);
  });

  it('the connect-time lookup refuses a name that resolves to loopback (no DNS-rebinding window)', async () => {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      guardedLookup(endpointPolicy(false))('localhost', {}, (e) => resolve(e)),
    );
    expect(err?.code).toBe('EUNSAFE');
    const ok = await new Promise<string>((resolve) =>
      guardedLookup(endpointPolicy(true))('localhost', {}, (_e, address) => resolve(address as string)),
    );
    expect(['127.0.0.1', '::1']).toContain(ok);
  });

  it('every redirect hop is checked again: a reachable first hop cannot bounce the fetch onto a private address', async () => {
    // A policy that admits this one loopback server and nothing else private, so the first hop
    // connects and the redirect targets are judged by the same rule (and refused before any connection).
    const onlyLoopback: EndpointPolicy = { schemes: ['http:', 'https:'], addressAllowed: (ip) => ip === '127.0.0.1' };
    const targets = [
      'http://10.0.0.1/card.json',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:9/card.json',
      'ftp://127.0.0.1/card.json',
    ];
    const bouncer = await startLoopback((req, res) => {
      res.writeHead(302, { location: targets[Number(req.url!.slice(1))]! });
      res.end();
    });
    try {
      for (const [i, target] of targets.entries()) {
        const err = await boundedRequest(`${bouncer.url}/${i}`, {
          timeoutMs: 1000,
          maxBytes: 1024,
          maxRedirects: 3,
          policy: onlyLoopback,
        }).catch((e) => e);
        expect(err, target).toBeInstanceOf(OutboundError);
        expect(err.reason, target).toBe('unsafe_endpoint');
      }
      expect(bouncer.requests).toHaveLength(targets.length);
    } finally {
      await bouncer.close();
    }
  });
});
