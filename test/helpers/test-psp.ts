import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { checkRequestBody, checkRequestHeaders, checkResponseBody, IdempotencyStore } from './acp-openapi';

/**
 * A loopback PSP implementing ACP's delegate_payment endpoint (openapi.delegate_payment.yaml,
 * 2026-04-17) on 127.0.0.1: every request's headers and body and every answer it sends are validated
 * against the official document (errors recorded in `validationErrors`, which tests assert empty);
 * the agent's bearer key and API-Version are checked; Idempotency-Key follows the RFC (replay, 422 on
 * a changed body). Issued tokens are one-time and bound to their Allowance, which `redeem` (the
 * seller's charge, in process) enforces. A card number ending in 0002 is declined when charged.
 */

const SPEC = 'openapi.delegate_payment.yaml' as const;
const PATH = '/agentic_commerce/delegate_payment';
export const DECLINED_CARD = '4000000000000002';

export interface IssuedToken {
  id: string;
  created: string;
  allowance: { reason: string; max_amount: number; currency: string; checkout_session_id: string; merchant_id: string; expires_at: string };
  card_number: string;
  metadata: Record<string, string>;
  used: boolean;
}

export interface TestPsp {
  url: string;
  key: string;
  validationErrors: string[];
  /** Requests received, in order, with the Idempotency-Key and whether the answer was a replay. */
  requests: Array<{ idempotencyKey: string | undefined; status: number; replayed: boolean }>;
  tokens: Map<string, IssuedToken>;
  /** The next `times` delegations answer `status` (5xx), then the PSP recovers. */
  failNext(times: number, status?: number): void;
  /** The seller charging `amount` with a token: the allowance decides. */
  redeem(
    token: string,
    charge: { checkout_session_id: string; merchant_id: string; amount: number; currency: string },
  ): { ok: true } | { ok: false; reason: string };
  close(): Promise<void>;
}

export async function startTestPsp(options: { key?: string; now?: () => Date } = {}): Promise<TestPsp> {
  const key = options.key ?? 'psp_agent_key_test';
  const now = options.now ?? (() => new Date());
  const validationErrors: string[] = [];
  const requests: TestPsp['requests'] = [];
  const tokens = new Map<string, IssuedToken>();
  const idempotency = new IdempotencyStore();
  let failures = { times: 0, status: 503 };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
      const send = (status: number, body: unknown, replayed = false) => {
        const where = `PSP answer ${status} to ${req.method} ${req.url}`;
        validationErrors.push(...checkResponseBody(SPEC, PATH, 'POST', status, body, where));
        const headers: Record<string, string> = {};
        if (body !== undefined) headers['content-type'] = 'application/json';
        if (req.headers['request-id']) headers['request-id'] = String(req.headers['request-id']);
        if (replayed) headers['idempotent-replayed'] = 'true';
        res.writeHead(status, headers);
        res.end(body === undefined ? undefined : JSON.stringify(body));
        requests.push({ idempotencyKey, status, replayed });
      };
      const error = (status: number, type: string, code: string, message: string, param?: string) =>
        send(status, { type, code, message, ...(param ? { param } : {}) });

      if (req.method !== 'POST' || req.url !== PATH) {
        res.writeHead(404).end();
        validationErrors.push(`PSP: ${req.method} ${req.url} is not an operation of ${SPEC}`);
        return;
      }
      const where = `PSP request ${req.method} ${req.url}`;
      validationErrors.push(...checkRequestHeaders(SPEC, PATH, 'POST', req.headers, where));
      if (req.headers.authorization !== `Bearer ${key}`) {
        // The document's Error enums name no authentication failure (its own 401 example uses a type
        // outside them), so the 401 goes without a body rather than with an invalid one.
        res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
        requests.push({ idempotencyKey, status: 401, replayed: false });
        return;
      }
      // The document's Error `code` is a closed list with nothing for a version or a malformed body:
      // `invalid_card` (its generic 400/422 code) keeps these answers valid against it.
      if (req.headers['api-version'] !== '2026-04-17') {
        return error(
          400,
          'invalid_request',
          'invalid_card',
          `API-Version ${String(req.headers['api-version'])} is not supported; use 2026-04-17`,
        );
      }
      if (!idempotencyKey) return error(400, 'invalid_request', 'idempotency_key_required', 'Idempotency-Key header is required');
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        return error(400, 'invalid_request', 'invalid_card', 'the body is not JSON');
      }
      const bodyErrors = checkRequestBody(SPEC, PATH, 'POST', body, where);
      validationErrors.push(...bodyErrors);
      if (bodyErrors.length > 0) return error(400, 'invalid_request', 'invalid_card', bodyErrors[0]!);
      if (failures.times > 0) {
        failures.times -= 1;
        return error(failures.status, 'service_unavailable', 'too_many_requests', 'the PSP is unavailable, try again');
      }
      const scope = `${key} ${PATH}`;
      const begun = idempotency.begin(scope, idempotencyKey, body);
      if (begun.kind === 'replay') return send(begun.answer.status, begun.answer.body, true);
      if (begun.kind === 'conflict') {
        return error(422, 'invalid_request', 'idempotency_conflict', 'Idempotency-Key has already been used with a different request body');
      }
      if (begun.kind === 'in_flight') {
        res.setHeader('retry-after', '1');
        return error(409, 'invalid_request', 'idempotency_in_flight', 'A request with this Idempotency-Key is currently being processed');
      }
      const finish = (status: number, answer: unknown) => {
        idempotency.finish(scope, idempotencyKey, { status, body: answer });
        send(status, answer);
      };
      if (Date.parse(body.allowance.expires_at) <= now().getTime()) {
        return finish(422, {
          type: 'invalid_request',
          code: 'invalid_card',
          message: 'the allowance has already expired',
          param: '$.allowance.expires_at',
        });
      }
      const token: IssuedToken = {
        id: `vt_${randomBytes(9).toString('base64url')}`,
        created: now().toISOString(),
        allowance: body.allowance,
        card_number: body.payment_method.number,
        metadata: body.metadata,
        used: false,
      };
      tokens.set(token.id, token);
      finish(201, {
        id: token.id,
        created: token.created,
        metadata: { ...body.metadata, merchant_id: body.allowance.merchant_id, idempotency_key: idempotencyKey },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  return {
    url: `http://127.0.0.1:${port}`,
    key,
    validationErrors,
    requests,
    tokens,
    failNext(times, status = 503) {
      failures = { times, status };
    },
    redeem(tokenId, charge) {
      const token = tokens.get(tokenId);
      if (!token) return { ok: false, reason: 'unknown token' };
      if (token.used) return { ok: false, reason: 'the token was already used' };
      const a = token.allowance;
      if (Date.parse(a.expires_at) <= now().getTime()) return { ok: false, reason: 'the token has expired' };
      if (a.checkout_session_id !== charge.checkout_session_id) return { ok: false, reason: 'the token is for another checkout session' };
      if (a.merchant_id !== charge.merchant_id) return { ok: false, reason: 'the token is for another merchant' };
      if (a.currency !== charge.currency.toLowerCase()) return { ok: false, reason: 'the token is for another currency' };
      if (charge.amount > a.max_amount) return { ok: false, reason: `the charge ${charge.amount} exceeds the allowance ${a.max_amount}` };
      if (token.card_number === DECLINED_CARD) return { ok: false, reason: 'Your card was declined.' };
      token.used = true;
      return { ok: true };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
