import http from 'node:http';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { Socket } from 'node:net';
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
import { boundedRequest, OutboundError, type OutboundOptions } from '../src/outbound/http';

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

/** A loopback server that counts the TCP connections it accepts and closes (keep-alive pools). */
async function countingServer(handler: (req: http.IncomingMessage, res: http.ServerResponse, nthOnConnection: number) => void) {
  const server = http.createServer();
  let connections = 0;
  let closed = 0;
  const paths: string[] = [];
  const perSocket = new Map<Socket, number>();
  server.on('connection', (s: Socket) => {
    connections++;
    s.on('close', () => closed++);
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const nth = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, nth);
    paths.push(req.url ?? '');
    handler(req, res, nth);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    byName: `http://localhost:${port}`,
    connections: () => connections,
    closed: () => closed,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const permissive = endpointPolicy(true);
const get = (url: string, extra: Partial<OutboundOptions> = {}) =>
  boundedRequest(url, { timeoutMs: 2000, maxBytes: 1 << 20, maxRedirects: 0, policy: permissive, ...extra });
/** What a webhook delivery sends (src/dispatch/attempt.ts): a POST answered by its status alone. */
const webhook = (url: string, extra: Partial<OutboundOptions> = {}) =>
  get(url, { method: 'POST', body: '{"type":"intent.surge"}', maxBytes: 0, headersOnly: true, ...extra });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await sleep(10);
  expect(cond()).toBe(true);
};

describe('keep-alive pools for outbound calls: the guard still applies to every connection', () => {
  it('sequential requests reuse one connection, headers-only webhooks included', async () => {
    const server = await countingServer((_req, res) => res.end('{"ok":true}'));
    try {
      for (let i = 0; i < 5; i++) expect((await webhook(`${server.url}/hook`)).status).toBe(200);
      expect((await get(`${server.url}/card`)).body.toString()).toBe('{"ok":true}');
      expect(server.paths).toHaveLength(6);
      expect(server.connections()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('a stricter rule never reuses a connection a permissive one opened to the same host:port', async () => {
    const server = await countingServer((_req, res) => res.end('ok'));
    try {
      expect((await get(`${server.byName}/permissive`)).status).toBe(200);
      expect(server.connections()).toBe(1);

      // The production rule: localhost is loopback, refused before any connection.
      const strict: EndpointPolicy = { ...endpointPolicy(false), schemes: ['http:', 'https:'] };
      const refused = await get(`${server.byName}/strict`, { policy: strict }).catch((e) => e);
      expect(refused).toBeInstanceOf(OutboundError);
      expect(refused.reason).toBe('unsafe_endpoint');

      // DNS rebinding: the name passes the per-request check, then resolves to loopback when the
      // connection is opened. The pooled permissive connection to the same host:port must not carry it.
      const addresses = (await dnsLookup('localhost', { all: true })).length;
      let checks = 0;
      const rebinding: EndpointPolicy = { schemes: ['http:'], addressAllowed: () => ++checks <= addresses };
      const rebound = await get(`${server.byName}/rebound`, { policy: rebinding }).catch((e) => e);
      expect(rebound).toBeInstanceOf(OutboundError);
      expect(rebound.reason).toBe('unsafe_endpoint');
      expect(checks).toBeGreaterThan(addresses); // the request's check passed; the connection's refused

      expect(server.paths).toEqual(['/permissive']);
      expect((await get(`${server.byName}/again`)).status).toBe(200);
      expect(server.connections()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('a server that closes idle connections does not fail the next request', async () => {
    // Closes each connection shortly after answering (a server keep-alive timeout shorter than ours).
    const closing = await countingServer((req, res) => {
      res.end('ok');
      setTimeout(() => req.socket.destroy(), 20);
    });
    // Closes a reused connection on receiving the request, without answering: the race where the
    // server closes an idle connection just as the pool hands it out.
    const racing = await countingServer((req, res, nth) => (nth > 1 ? req.socket.destroy() : res.end('ok')));
    try {
      expect((await webhook(`${closing.url}/1`)).status).toBe(200);
      await until(() => closing.closed() === 1);
      expect((await webhook(`${closing.url}/2`)).status).toBe(200);
      expect(closing.connections()).toBe(2);

      expect((await webhook(`${racing.url}/1`)).status).toBe(200);
      expect((await get(`${racing.url}/2`)).body.toString()).toBe('ok'); // retried once on a new connection
      expect(racing.paths).toEqual(['/1', '/2', '/2']);
      expect(racing.connections()).toBe(2);
    } finally {
      await closing.close();
      await racing.close();
    }

    // A fresh connection that fails is not retried: the server that cuts it is asked once.
    const cutting = await countingServer((req) => req.socket.destroy());
    try {
      const err = await webhook(`${cutting.url}/x`).catch((e) => e);
      expect(err).toBeInstanceOf(OutboundError);
      expect(err.reason).toBe('unreachable');
      expect(cutting.paths).toEqual(['/x']);
    } finally {
      await cutting.close();
    }
  });

  it('a request cut off by its deadline closes its connection: a late answer never reaches the next request', async () => {
    const server = await countingServer((req, res) => {
      if (req.url === '/slow') setTimeout(() => res.writable && res.end('slow'), 300);
      else res.end('fast');
    });
    try {
      expect((await get(`${server.url}/fast`)).body.toString()).toBe('fast');
      const err = await get(`${server.url}/slow`, { timeoutMs: 100 }).catch((e) => e);
      expect(err).toBeInstanceOf(OutboundError);
      expect(err.reason).toBe('timeout');
      await until(() => server.closed() === 1);
      await sleep(300); // the slow answer would have been written by now
      expect((await get(`${server.url}/fast`)).body.toString()).toBe('fast');
      expect((await webhook(`${server.url}/fast`)).status).toBe(200);
      expect(server.connections()).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('headers-only answers with a large body are classified by status, and their connection closed', async () => {
    const big = Buffer.alloc(512 * 1024, 'x');
    const server = await countingServer((req, res) => {
      if (req.url === '/declared') return res.writeHead(503, { 'content-length': big.length, 'retry-after': '7' }).end(big);
      if (req.url === '/chunked') return res.writeHead(200).end(big); // no length: read until the cap
      res.writeHead(410).end('gone');
    });
    try {
      const declared = await webhook(`${server.url}/declared`);
      expect(declared.status).toBe(503);
      expect(declared.headers['retry-after']).toBe('7');
      await until(() => server.closed() === 1);
      expect((await webhook(`${server.url}/chunked`)).status).toBe(200);
      await until(() => server.closed() === 2);
      expect((await webhook(`${server.url}/small`)).status).toBe(410);
      expect((await webhook(`${server.url}/small`)).status).toBe(410);
      expect(server.connections()).toBe(3); // the small answers shared one connection
    } finally {
      await server.close();
    }
  });
});
