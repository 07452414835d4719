import http from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, uniqueEmail } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import * as passwords from '../src/crypto/passwords';

/**
 * Hostile input over HTTP against the real app: login timing, bad text (NUL, lone surrogates),
 * numbers too large for their columns, deep nesting, a lying Content-Encoding, undeclared methods.
 */

// Wraps the real password check so a test can see which hash a login verified against.
vi.mock('../src/crypto/passwords', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/crypto/passwords')>();
  return { ...real, verifyPassword: vi.fn(real.verifyPassword) };
});

let api: TestApi;
let dev: Onboarded;

beforeAll(async () => {
  api = await startTestApi({ withTemporal: false });
  dev = await onboard(api.url);
});
afterAll(() => api?.close());

describe('login cannot enumerate accounts by timing', () => {
  it('a missing account runs the same scrypt as a wrong password, against a dummy hash of the current parameters', async () => {
    const verify = vi.mocked(passwords.verifyPassword);
    // The dummy hash has the parameters and key length of a freshly made hash, so it costs the same.
    const fresh = await passwords.hashPassword('anything at all');
    const params = (h: string) => h.split('$').slice(0, 4).join('$');
    const keyLength = (h: string) => Buffer.from(h.split('$')[5]!, 'base64').length;
    expect(params(passwords.DUMMY_PASSWORD_HASH)).toBe(params(fresh));
    expect(keyLength(passwords.DUMMY_PASSWORD_HASH)).toBe(keyLength(fresh));

    verify.mockClear();
    const missing = await call(api.url, 'POST', '/v1/developers/login', {
      body: { contact_email: uniqueEmail('nobody'), password: 'some password' },
    });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toBe('invalid_credentials');
    expect(verify).toHaveBeenCalledTimes(1);
    expect(verify.mock.calls[0]![1]).toBe(passwords.DUMMY_PASSWORD_HASH);

    verify.mockClear();
    const wrong = await call(api.url, 'POST', '/v1/developers/login', { body: { contact_email: dev.email, password: 'not the password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(missing.body);
    expect(verify).toHaveBeenCalledTimes(1);
    expect(verify.mock.calls[0]![1]).not.toBe(passwords.DUMMY_PASSWORD_HASH);
  });
});

/** A raw HTTP request (fetch refuses TRACE and friends), answering status, headers and the parsed body. */
function rawRequest(method: string, path: string, opts: { headers?: Record<string, string>; body?: string | Buffer } = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
    const req = http.request(api.url + path, { method, headers: opts.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode!, headers: res.headers, body });
      });
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('NUL and lone surrogates are a 400 naming the field, wherever they enter', () => {
  const key = () => ({ token: dev.apiKey });
  const cases: Array<[string, () => Promise<{ status: number; body: any }>, string]> = [
    ['POST /v1/intents body', () => call(api.url, 'POST', '/v1/intents', { ...key(), body: { raw_query: 'shoes\u0000' } }), 'raw_query'],
    [
      'POST /v1/intents nested key',
      () => call(api.url, 'POST', '/v1/intents', { ...key(), body: { raw_query: 'shoes', metadata: { 'a\u0000b': 1 } } }),
      'metadata."a\\u0000b"',
    ],
    ['GET /v1/intents/{intentId}', () => call(api.url, 'GET', '/v1/intents/int_%00', key()), 'path.intentId'],
    ['POST /v1/match', () => call(api.url, 'POST', '/v1/match', { ...key(), body: { intent_id: 'int_\u0000' } }), 'intent_id'],
    [
      'POST /v1/decision-events',
      () =>
        call(api.url, 'POST', '/v1/decision-events', {
          ...key(),
          body: { event_type: 'pick', proposal_id: 'prop_1', agent_id: 'a\u0000' },
        }),
      'agent_id',
    ],
    [
      'POST /v1/experience-feed',
      () =>
        call(api.url, 'POST', '/v1/experience-feed', {
          ...key(),
          body: { agent_id: 'shopper', inspiration_refs: [{ type: 'text', text: 'cozy\u0000' }] },
        }),
      'inspiration_refs[0].text',
    ],
    [
      'GET /v1/recommend (keyless portal demo)',
      () => call(api.url, 'GET', '/v1/recommend?intent=air%00fryer&channel=portal_demo'),
      'query.intent',
    ],
    ['GET /v1/merchant/{merchantId}', () => call(api.url, 'GET', '/v1/merchant/m%00', key()), 'path.merchantId'],
    ['GET /r/{recId} (keyless)', () => call(api.url, 'GET', '/r/rec_%00'), 'path.recId'],
    [
      'GET /v1/merchant/dispatch-queue',
      () => call(api.url, 'GET', '/v1/merchant/dispatch-queue?intent_id=int_%00', { headers: { 'x-supply-key': api.config.SUPPLY_KEY! } }),
      'query.intent_id',
    ],
    [
      'POST /v1/intent-mandates/sign',
      () => call(api.url, 'POST', '/v1/intent-mandates/sign', { ...key(), body: { product_id: '1\u0000', amount_limit: 10 } }),
      'product_id',
    ],
    [
      'POST /v1/commerce-runtime',
      () => call(api.url, 'POST', '/v1/commerce-runtime', { ...key(), body: { intent: { raw_query: 'earbuds\u0000' } } }),
      'intent.raw_query',
    ],
    [
      'POST /v1/developers/register (keyless)',
      () =>
        call(api.url, 'POST', '/v1/developers/register', {
          body: { display_name: 'X\u0000', contact_email: uniqueEmail(), password: 'a long password' },
        }),
      'display_name',
    ],
  ];
  it.each(cases)('NUL in %s', async (_name, send, field) => {
    const res = await send();
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.message).toMatch(/NUL/);
    expect(res.body.fields).toEqual([field]);
    expect(typeof res.body.error).toBe('string');
  });

  it('a lone surrogate is refused, not stored as U+FFFD; a paired one (an emoji) is text', async () => {
    const lone = await call(api.url, 'POST', '/v1/intents', { token: dev.apiKey, raw: '{"raw_query":"shoes \\ud800 for me"}' });
    expect(lone.status).toBe(400);
    expect(lone.body).toMatchObject({ fields: ['raw_query'] });
    expect(lone.body.message).toMatch(/surrogate/);
    const pair = await call(api.url, 'POST', '/v1/intents', { token: dev.apiKey, raw: '{"raw_query":"running shoes \\ud83d\\udc5f"}' });
    expect(pair.status).toBe(201);
  });

  it('MCP and A2A refuse them too, as JSON-RPC invalid params naming the field', async () => {
    const mcp = await call(api.url, 'POST', '/mcp', {
      token: dev.apiKey,
      headers: { accept: 'application/json, text/event-stream' },
      raw: '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"recommend","arguments":{"intent":"shoes\\u0000"}}}',
    });
    expect(mcp.status).toBe(400);
    expect(mcp.body).toMatchObject({ id: 7, error: { code: -32602, data: { error: 'invalid_params' } } });
    expect(mcp.body.message).toMatch(/params\.arguments\.intent.*NUL/);

    const a2a = await call(api.url, 'POST', '/a2a', {
      token: dev.apiKey,
      raw: '{"jsonrpc":"2.0","id":8,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"shoes \\ud800"}]}}}',
    });
    expect(a2a.status).toBe(200);
    expect(a2a.body).toMatchObject({ id: 8, error: { code: -32602, data: { error: 'invalid_params' } } });
    expect(a2a.body.error.message).toMatch(/surrogate/);
  });
});

describe('members that name a prototype (`__proto__`, `constructor.prototype`)', () => {
  it('are valid JSON: accepted where unknown members are, removed before anything stores them, polluting nothing', async () => {
    const raw =
      '{"raw_query":"wool socks","time_window":{"urgency":"soon","__proto__":{"polluted":"open"}},' +
      '"metadata":{"keep":1,"__proto__":{"polluted":"meta"},' +
      '"nested":{"constructor":{"prototype":{"polluted":"ctor"}},"ok":true},"list":[{"__proto__":{"polluted":"item"}}],' +
      '"constructor":"a plain member of that name is data"}}';
    const res = await call(api.url, 'POST', '/v1/intents', { token: dev.apiKey, raw });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(res.body.intent.metadata)).toBe(Object.prototype);
    const kept = { keep: 1, nested: { ok: true }, list: [{}], constructor: 'a plain member of that name is data' };
    expect(res.body.intent.metadata).toEqual(kept);
    // time_window keeps members it does not name (an open object): the prototype-named one is not kept.
    expect(res.body.intent.time_window).toEqual({ urgency: 'soon' });
    const row = await api.db
      .selectFrom('intents')
      .select('metadata')
      .where('intent_id', '=', res.body.intent.intent_id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row.metadata)).not.toMatch(/__proto__|prototype|polluted/);
    const read = await call(api.url, 'GET', `/v1/intents/${res.body.intent.intent_id}`, { token: dev.apiKey });
    expect(read.body.intent.metadata).toEqual(kept);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('an object that admits no unknown members refuses one by name, as it refuses any unknown member', async () => {
    const res = await call(api.url, 'POST', '/v1/intents', {
      token: dev.apiKey,
      raw: '{"raw_query":"socks","budget_range":{"max":50,"__proto__":{"polluted":true}}}',
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_payload', fields: ['budget_range', 'budget_range.__proto__'] });
    // The body itself admits no unknown members either.
    const top = await call(api.url, 'POST', '/v1/intents', {
      token: dev.apiKey,
      raw: '{"raw_query":"socks","__proto__":{"polluted":true}}',
    });
    expect(top.status).toBe(400);
    expect(top.body).toMatchObject({ error: 'invalid_payload', fields: ['__proto__'] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('A2A reads such a body as JSON too (not a parse error)', async () => {
    const res = await call(api.url, 'POST', '/a2a', {
      token: dev.apiKey,
      raw: '{"jsonrpc":"2.0","id":9,"method":"GetTask","params":{"id":"task-that-does-not-exist","__proto__":{"polluted":true}}}',
    });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(9);
    expect(res.body.error?.code).not.toBe(-32700);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('numbers too large for their columns', () => {
  it('"shoes under $3000000000" is a capped budget, not a 500 (intents and keyless recommend)', async () => {
    const intent = await call(api.url, 'POST', '/v1/intents', { token: dev.apiKey, body: { raw_query: 'shoes under $3000000000' } });
    expect(intent.status, JSON.stringify(intent.body)).toBe(201);
    expect(intent.body.intent.budget_range.max).toBeLessThanOrEqual(10_000_000);
    const rec = await call(api.url, 'GET', `/v1/recommend?intent=${encodeURIComponent('shoes under $3000000000')}&channel=portal_demo`);
    expect(rec.status, JSON.stringify(rec.body)).toBe(200);
    const huge = await call(
      api.url,
      'GET',
      `/v1/recommend?intent=${encodeURIComponent('shoes between $99999999999999999999 and $1e400')}&channel=portal_demo`,
    );
    expect(huge.status, JSON.stringify(huge.body)).toBe(200);
  });
});

describe('bodies that would break a recursive reader', () => {
  const deep = (levels: number, leaf = '1') => '{"a":'.repeat(levels) + leaf + '}'.repeat(levels);

  it('nesting deeper than 64 levels is a 400 before anything recursive runs; 64 is parsed', async () => {
    const tooDeep = await call(api.url, 'POST', '/v1/intents', { token: dev.apiKey, raw: `{"raw_query":"x","metadata":${deep(10_000)}}` });
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body).toMatchObject({ error: 'invalid_json' });
    expect(tooDeep.body.message).toMatch(/64/);
    const withKey = await call(api.url, 'POST', '/v1/decision-events', {
      token: dev.apiKey,
      headers: { 'idempotency-key': `deep-${Date.now()}` },
      raw: `{"event_type":"pick","proposal_id":"prop_x","agent_id":"a","payload":${deep(5_000)}}`,
    });
    expect(withKey.status).toBe(400);
    expect(withKey.body.error).toBe('invalid_json');
    // 64 levels in all (the body is one): accepted by the parser, judged by the route as usual.
    const atLimit = await call(api.url, 'POST', '/v1/intents', { token: dev.apiKey, raw: `{"raw_query":"socks","metadata":${deep(62)}}` });
    expect(atLimit.status, JSON.stringify(atLimit.body)).toBe(201);
  });

  it('Content-Encoding: gzip on a body that is not gzip is a 400 JSON answer', async () => {
    const res = await rawRequest('POST', '/v1/intents', {
      headers: { authorization: `Bearer ${dev.apiKey}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: '{"raw_query":"shoes"}',
    });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body.error).toBe('invalid_content_encoding');
    const real = await rawRequest('POST', '/v1/intents', {
      headers: { authorization: `Bearer ${dev.apiKey}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync('{"raw_query":"gzipped shoes"}'),
    });
    expect(real.status).toBe(201);
  });

  it('every Content-Encoding fails alike: a body that does not decode, or an encoding not decoded, is a 400 before any credential', async () => {
    const json = Buffer.from(JSON.stringify({ raw_query: 'shoes', padding: 'x'.repeat(2000) }));
    const bodies: Record<string, Record<string, Buffer>> = {
      gzip: { garbage: Buffer.from('garbage\n'), truncated: gzipSync(json).subarray(0, 20) },
      deflate: { garbage: Buffer.from('garbage\n'), truncated: deflateSync(json).subarray(0, 20) },
      br: { garbage: Buffer.from('garbage\n'), truncated: brotliCompressSync(json).subarray(0, 20) },
      zstd: { any: json },
      compress: { any: json },
    };
    // Before login (register, login), with a key (intents), and the MCP endpoint; no credential is sent.
    for (const path of ['/v1/developers/register', '/v1/developers/login', '/v1/intents', '/mcp']) {
      for (const [encoding, cases] of Object.entries(bodies)) {
        for (const [name, body] of Object.entries(cases)) {
          const res = await rawRequest('POST', path, {
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-encoding': encoding },
            body,
          });
          const what = `${path} ${encoding} ${name}: ${res.status} ${JSON.stringify(res.body)}`;
          expect(res.status, what).toBe(400);
          expect(res.headers['content-type'], what).toMatch(/application\/json/);
          expect(res.body.error, what).toBe('invalid_content_encoding');
        }
      }
    }
    // A2A answers JSON-RPC: a parse error that names the encoding, never a 500.
    const a2a = await rawRequest('POST', '/a2a', {
      headers: { authorization: `Bearer ${dev.apiKey}`, 'content-type': 'application/json', 'content-encoding': 'br' },
      body: Buffer.from('garbage\n'),
    });
    expect(a2a.status, JSON.stringify(a2a.body)).toBeLessThan(500);
    expect(a2a.body.error.code).toBe(-32700);
    expect(JSON.stringify(a2a.body.error)).toContain('invalid_content_encoding');
    // Each of them decodes a correct body.
    for (const [encoding, encode] of [
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const) {
      const ok = await rawRequest('POST', '/v1/intents', {
        headers: { authorization: `Bearer ${dev.apiKey}`, 'content-type': 'application/json', 'content-encoding': encoding },
        body: encode(JSON.stringify({ raw_query: `${encoding} shoes` })),
      });
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    }
  });
});

describe('undeclared query parameters', () => {
  it('are a 400 invalid_query naming them, on GET and POST routes alike; declared ones still answer', async () => {
    const supply = { 'x-supply-key': api.config.SUPPLY_KEY! };
    const report = await call(api.url, 'GET', '/v1/report/attribution?days=7&dayz=8', { headers: supply });
    expect(report.status, JSON.stringify(report.body)).toBe(400);
    expect(report.body).toMatchObject({ error: 'invalid_query', fields: ['query.dayz'] });
    expect(report.body.message).toContain('"dayz"');
    const ok = await call(api.url, 'GET', '/v1/report/attribution?days=7', { headers: supply });
    expect(ok.status).toBe(200);
    // A route that declares no query parameter at all, and one with a body.
    const whoami = await call(api.url, 'GET', '/v1/whoami?channel=web', { token: dev.apiKey });
    expect(whoami.status).toBe(400);
    expect(whoami.body).toMatchObject({ error: 'invalid_query', fields: ['query.channel'] });
    const intent = await call(api.url, 'POST', '/v1/intents?raw_query=shoes', { token: dev.apiKey, body: { raw_query: 'shoes' } });
    expect(intent.status).toBe(400);
    expect(intent.body).toMatchObject({ error: 'invalid_query', fields: ['query.raw_query'] });
  });

  it('the shopper-facing card link ignores them (tracking parameters are appended on the way)', async () => {
    const res = await call(api.url, 'GET', '/r/rec_missing?utm_source=mail&fbclid=x');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });
});

describe('methods', () => {
  it.each(['TRACE', 'QUERY', 'PROPFIND', 'PUT', 'DELETE'])('%s on a known path → 405 JSON with the path’s Allow', async (method) => {
    const res = await rawRequest(method, '/v1/intents', { headers: { authorization: `Bearer ${dev.apiKey}` } });
    expect(res.status).toBe(405);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body.error).toBe('method_not_allowed');
    expect(res.body.message).toContain(method);
    expect(res.headers.allow).toBe('OPTIONS, POST');
  });

  it('an undeclared method on an unknown path is 404', async () => {
    const res = await rawRequest('TRACE', '/v1/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });

  it('OPTIONS lists exactly the methods of the path; a concrete path is not its template', async () => {
    const post = await rawRequest('OPTIONS', '/v1/merchant/register');
    expect(post.status).toBe(204);
    expect(post.headers.allow).toBe('OPTIONS, POST');
    const get = await rawRequest('OPTIONS', '/v1/merchant/acme');
    expect(get.headers.allow).toBe('GET, HEAD, OPTIONS');
    const keys = await rawRequest('OPTIONS', '/v1/developers/keys/key_1');
    expect(keys.headers.allow).toBe('DELETE, OPTIONS, PATCH');
    // GET on the POST-only register is refused, not read as the merchant named "register".
    const wrong = await call(api.url, 'GET', '/v1/merchant/register', { token: dev.apiKey });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('OPTIONS, POST');
    // The static dispatch queue still answers GET.
    const queue = await call(api.url, 'GET', '/v1/merchant/dispatch-queue', { headers: { 'x-supply-key': api.config.SUPPLY_KEY! } });
    expect(queue.status).toBe(200);
  });
});

describe('a commerce runtime on a sentence with a huge number', () => {
  it('finishes (never stays queued): the budget read from the text is capped before any column sees it', { timeout: 120_000 }, async () => {
    const flows = await startTestApi({ db: api.db });
    const { startTestWorker } = await import('./helpers/worker');
    const worker = await startTestWorker(flows.config, flows.db);
    try {
      const res = await call(flows.url, 'POST', '/v1/commerce-runtime', {
        token: dev.apiKey,
        headers: { prefer: 'wait=60' },
        body: { intent: { raw_query: 'shoes under $3000000000' }, commerce_budget: { max_agent_iterations: 2 } },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.runtime.runtime_session.stage).not.toBe('queued');
      expect(res.body.runtime.runtime_trace.audit_status).not.toMatch(/^failed/);
      expect(res.body.runtime.intent.budget_range.max).toBeLessThanOrEqual(10_000_000);
    } finally {
      await worker.stop();
      await flows.close();
    }
  });
});
