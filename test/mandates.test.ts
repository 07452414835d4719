import { execFile } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import canonicalize from 'canonicalize';
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { CATALOG_MERCHANT_ID } from '../src/db/migrations/0008_recommend';

const exec = promisify(execFile);

let api: TestApi;
let noKey: TestApi;
let dev: Onboarded;
let tmp: string;

beforeAll(async () => {
  const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  api = await startTestApi({ withTemporal: false, env: { MANDATE_SIGNING_KEY: pem, PUBLIC_BASE_URL: 'https://gw.example.test' } });
  noKey = await startTestApi({ withTemporal: false, env: { MANDATE_SIGNING_KEY: undefined } });
  dev = await onboard(api.url);
  tmp = await mkdtemp(path.join(os.tmpdir(), 'mandates-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
  await api?.close();
  await noKey?.close();
});

const SIGN = '/v1/intent-mandates/sign';
const sign = (body: unknown, base = api.url, token = dev.apiKey, headers: Record<string, string> = {}) =>
  call(base, 'POST', SIGN, { token, body, headers });

async function mandateJwk() {
  const jwks = await call(api.url, 'GET', '/.well-known/jwks.json');
  expect(jwks.status).toBe(200);
  const jwk = jwks.body.keys.find((k: any) => k.alg === 'RS256');
  expect(jwk).toBeDefined();
  return jwk;
}

describe('POST /v1/intent-mandates/sign (docs/MANDATES.md)', () => {
  it('201: a signed mandate whose signature openssl verifies against the JWKS key', async () => {
    const res = await sign({ product_id: '1', amount_limit: 49.99 });
    expect(res.status, res.text).toBe(201);
    const m = res.body.mandate;
    expect(m).toEqual({
      mandate_id: expect.stringMatching(/^mnd_/),
      payload: {
        type: 'intent_mandate',
        version: 1,
        mandate_id: m.mandate_id,
        issuer: 'https://gw.example.test',
        developer_id: dev.developerId,
        product_id: '1',
        amount_limit: 49.99,
        currency: 'USD',
        issued_at: m.issued_at,
        expires_at: m.expires_at,
        nonce: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      },
      canonical_payload: expect.any(String),
      signature: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
      jws: expect.any(String),
      alg: 'RS256',
      kid: expect.any(String),
      jwks_uri: 'https://gw.example.test/.well-known/jwks.json',
      issued_at: expect.any(String),
      expires_at: expect.any(String),
    });
    expect(m.canonical_payload).toBe(canonicalize(m.payload));
    expect(Date.parse(m.expires_at) - Date.parse(m.issued_at)).toBe(3600_000);
    expect(Math.abs(Date.parse(m.issued_at) - Date.now())).toBeLessThan(60_000);

    const jwk = await mandateJwk();
    expect(m.kid).toBe(jwk.kid);

    // The real openssl, on the canonical payload bytes, with the public key taken from the JWKS.
    const pubPem = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();
    const pubFile = path.join(tmp, 'pub.pem');
    const sigFile = path.join(tmp, 'sig.bin');
    const dataFile = path.join(tmp, 'canonical.json');
    await writeFile(pubFile, pubPem);
    await writeFile(sigFile, Buffer.from(m.signature, 'base64url'));
    await writeFile(dataFile, m.canonical_payload, 'utf8');
    const ok = await exec('openssl', ['dgst', '-sha256', '-verify', pubFile, '-signature', sigFile, dataFile]);
    expect(ok.stdout.trim()).toBe('Verified OK');

    // A single changed byte fails verification.
    const tampered = path.join(tmp, 'tampered.json');
    await writeFile(tampered, m.canonical_payload.replace('49.99', '49.98'), 'utf8');
    await expect(exec('openssl', ['dgst', '-sha256', '-verify', pubFile, '-signature', sigFile, tampered])).rejects.toMatchObject({
      stdout: expect.stringMatching(/verification failure/i),
    });

    // The JWS: RS256, same kid, payload is the canonical text.
    expect(decodeProtectedHeader(m.jws)).toMatchObject({ alg: 'RS256', kid: jwk.kid });
    const { payload } = await compactVerify(m.jws, await importJWK(jwk, 'RS256'));
    expect(new TextDecoder().decode(payload)).toBe(m.canonical_payload);
  });

  it('signs the optional members too and stores the mandate for audit', async () => {
    // intent_id must name an intent of the caller's developer (docs/TENANCY.md).
    const created = await call(api.url, 'POST', '/v1/intents', { token: dev.apiKey, body: { raw_query: 'a mandate for running shoes' } });
    expect(created.status, created.text).toBe(201);
    const intentId = created.body.intent.intent_id as string;
    const body = {
      product_id: '  2  ',
      amount_limit: 1200,
      currency: 'EUR',
      intent_id: intentId,
      merchant_id: CATALOG_MERCHANT_ID,
      expires_in_s: 600,
      metadata: { cart: ['a', 'b'], note: 'ünïcode ✓', z: 1, a: 2 },
    };
    const res = await sign(body);
    expect(res.status, res.text).toBe(201);
    const m = res.body.mandate;
    expect(m.payload).toMatchObject({
      product_id: '2',
      amount_limit: 1200,
      currency: 'EUR',
      intent_id: intentId,
      merchant_id: CATALOG_MERCHANT_ID,
      metadata: body.metadata,
    });
    expect(Date.parse(m.expires_at) - Date.parse(m.issued_at)).toBe(600_000);
    expect(m.canonical_payload).toBe(canonicalize(m.payload));
    // RFC 8785: sorted keys, no whitespace.
    expect(m.canonical_payload).toContain('"metadata":{"a":2,"cart":["a","b"],"note":"ünïcode ✓","z":1}');
    const { payload } = await compactVerify(m.jws, await importJWK(await mandateJwk(), 'RS256'));
    expect(new TextDecoder().decode(payload)).toBe(m.canonical_payload);

    const row = await api.db.selectFrom('intent_mandates').selectAll().where('mandate_id', '=', m.mandate_id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      developer_id: dev.developerId,
      api_key_id: dev.keyId,
      product_id: '2',
      amount_limit: 1200,
      currency: 'EUR',
      intent_id: intentId,
      merchant_id: CATALOG_MERCHANT_ID,
      payload: m.payload,
      canonical_payload: m.canonical_payload,
      signature: m.signature,
      jws: m.jws,
      alg: 'RS256',
      kid: m.kid,
    });
    expect(row.issued_at.toISOString()).toBe(m.issued_at);
    expect(row.expires_at.toISOString()).toBe(m.expires_at);
    // Append-only: the database refuses to alter or remove it.
    await expect(api.db.deleteFrom('intent_mandates').where('mandate_id', '=', m.mandate_id).execute()).rejects.toThrow(/append-only/);
    await expect(
      api.db.updateTable('intent_mandates').set({ amount_limit: 1 }).where('mandate_id', '=', m.mandate_id).execute(),
    ).rejects.toThrow(/append-only/);
  });

  it('two requests with the same body give different mandates (fresh id and nonce)', async () => {
    const [a, b] = await Promise.all([sign({ product_id: '1', amount_limit: 5 }), sign({ product_id: '1', amount_limit: 5 })]);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.mandate.mandate_id).not.toBe(b.body.mandate.mandate_id);
    expect(a.body.mandate.payload.nonce).not.toBe(b.body.mandate.payload.nonce);
  });

  it('an Idempotency-Key replays the same mandate', async () => {
    const headers = { 'idempotency-key': `mandate-${Date.now()}` };
    const first = await sign({ product_id: '1', amount_limit: 7 }, api.url, dev.apiKey, headers);
    const again = await sign({ product_id: '1', amount_limit: 7 }, api.url, dev.apiKey, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it.each([
    ['product_id missing', { amount_limit: 10 }, 'product_id'],
    ['product_id empty', { product_id: '  ', amount_limit: 10 }, 'product_id'],
    ['product_id not a string', { product_id: 42, amount_limit: 10 }, 'product_id'],
    ['amount_limit missing', { product_id: '1' }, 'amount_limit'],
    ['amount_limit 0', { product_id: '1', amount_limit: 0 }, 'amount_limit'],
    ['amount_limit -5', { product_id: '1', amount_limit: -5 }, 'amount_limit'],
    ['amount_limit a string', { product_id: '1', amount_limit: '10' }, 'amount_limit'],
    ['amount_limit null', { product_id: '1', amount_limit: null }, 'amount_limit'],
    ['amount_limit too large', { product_id: '1', amount_limit: 1e12 }, 'amount_limit'],
    ['amount_limit below a cent', { product_id: '1', amount_limit: 1e-320 }, 'amount_limit'],
    ['amount_limit 0.004 USD', { product_id: '1', amount_limit: 0.004 }, 'amount_limit'],
    ['amount_limit below one yen', { product_id: '1', amount_limit: 0.4, currency: 'JPY' }, 'amount_limit'],
    ['currency not ISO 4217', { product_id: '1', amount_limit: 1, currency: 'usd' }, 'currency'],
    ['expires_in_s too long', { product_id: '1', amount_limit: 1, expires_in_s: 10 ** 7 }, 'expires_in_s'],
    ['expires_in_s not an integer', { product_id: '1', amount_limit: 1, expires_in_s: 90.5 }, 'expires_in_s'],
    ['metadata not an object', { product_id: '1', amount_limit: 1, metadata: 'x' }, 'metadata'],
    ['unknown member', { product_id: '1', amount_limit: 1, amount_limt: 2 }, 'amount_limt'],
  ])('400 invalid_body: %s', async (_name, body, field) => {
    const res = await sign(body);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toBe('invalid_body');
    expect(res.body.fields).toContain(field);
  });

  it('404 product_not_found for a product the catalog does not have, or not of the merchant named', async () => {
    for (const [product_id, merchant_id] of [
      ['sku-nothing-here', undefined],
      ['9223372036854775808', undefined],
      ['0', undefined],
      ['1', 'merchant-that-does-not-sell-it'],
    ] as const) {
      const res = await sign({ product_id, amount_limit: 5, ...(merchant_id ? { merchant_id } : {}) });
      expect(res.status, res.text).toBe(404);
      expect(res.body).toMatchObject({ error: 'product_not_found', fields: ['product_id'] });
    }
    // A product named by the merchant's own feed id: test/feeds.test.ts (catalogHasProduct), on a catalog it imports.
    // Nothing was stored for the refused ones.
    const stored = await api.db.selectFrom('intent_mandates').select('mandate_id').where('product_id', '=', 'sku-nothing-here').execute();
    expect(stored).toEqual([]);
  });

  it('400 invalid_body without a body', async () => {
    const res = await call(api.url, 'POST', SIGN, { token: dev.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_body');
  });

  it('503 signing_unavailable when the integration has no mandate key (after validation)', async () => {
    const other = await onboard(noKey.url);
    const keys = (await call(noKey.url, 'GET', '/.well-known/jwks.json')).body.keys;
    expect(keys.some((k: any) => k.alg === 'RS256')).toBe(false);
    const res = await sign({ product_id: '1', amount_limit: 10 }, noKey.url, other.apiKey);
    expect(res.status, res.text).toBe(503);
    expect(res.body).toMatchObject({ error: 'signing_unavailable', message: expect.any(String) });
    // An invalid body is still 400 there: the body is validated first.
    const bad = await sign({ product_id: '1', amount_limit: 0 }, noKey.url, other.apiKey);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('invalid_body');
    const stored = await noKey.db
      .selectFrom('intent_mandates')
      .select('mandate_id')
      .where('developer_id', '=', other.developerId)
      .execute();
    expect(stored).toEqual([]);
  });

  it('401 without an API key, 403 with a key lacking the payments scope', async () => {
    const none = await call(api.url, 'POST', SIGN, { body: { product_id: '1', amount_limit: 1 } });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('invalid_api_key');
    const bad = await sign({ product_id: '1', amount_limit: 1 }, api.url, 'cig_sk_not-a-real-key');
    expect(bad.status).toBe(401);
    const registryOnly = await onboard(api.url, { scopes: ['registry'] });
    const scoped = await sign({ product_id: '1', amount_limit: 1 }, api.url, registryOnly.apiKey);
    expect(scoped.status).toBe(403);
    expect(scoped.body.error).toBe('insufficient_scope');
  });

  it("404 intent_not_found for an intent_id that is unknown or another developer's, and nothing is stored", async () => {
    const other = await onboard(api.url);
    const theirs = await call(api.url, 'POST', '/v1/intents', { token: other.apiKey, body: { raw_query: 'their intent' } });
    expect(theirs.status).toBe(201);
    for (const intent_id of [theirs.body.intent.intent_id, 'int_doesnotexist']) {
      const res = await sign({ product_id: '1', amount_limit: 1, intent_id });
      expect(res.status, res.text).toBe(404);
      expect(res.body.error).toBe('intent_not_found');
      const stored = await api.db.selectFrom('intent_mandates').select('mandate_id').where('intent_id', '=', intent_id).execute();
      expect(stored).toEqual([]);
    }
  });

  it('is documented in the OpenAPI document, in English and zh-CN', async () => {
    const en = (await call(api.url, 'GET', '/openapi.json')).body;
    const op = en.paths['/v1/intent-mandates/sign'].post;
    expect(op.security).toEqual([{ ApiKey: [] }]);
    expect(Object.keys(op.responses).sort()).toEqual(['201', '400', '401', '403', '404', '413', '415', '429', '431', '503']);
    expect(op.responses['404'].description).toContain('intent_not_found');
    expect(op.responses['400'].description).toContain('invalid_body');
    expect(op.responses['503'].description).toContain('signing_unavailable');
    const zh = (await call(api.url, 'GET', '/openapi.json?locale=zh-CN')).body;
    expect(zh.paths['/v1/intent-mandates/sign'].post.summary).toBe('签署意图授权书');
    expect(zh.paths['/v1/intent-mandates/sign'].post.responses['503'].description).toContain('未配置授权书签名密钥');
  });
});
