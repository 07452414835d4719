import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { z } from 'zod';
import { jwks } from '../../src/crypto/signing-keys';
import { temporalAnswers } from '../../src/temporal/client';
import { workerPresence, WORKER_SEEN_WITHIN_MS } from '../../src/temporal/wait';
import { within } from '../../src/time';
import { AppError } from '../../src/errors';
import type { AppContext } from '../context';
import { agentCard } from '../agent-card';
import { buildOpenApiDocument, resolveLocale } from '../openapi';
import { LOCALES } from '../openapi-locales';
import { auth, type RouteRegistry } from './registry';

const DOCUMENTS_DIR = fileURLToPath(new URL('../documents/', import.meta.url));
const TAG = 'Service';

const Health = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    db: z.enum(['ok', 'unavailable']),
    temporal: z.enum(['ok', 'unavailable']),
    worker: z.enum(['ok', 'unavailable']).meta({
      description: `Whether a worker polls the deployment's task queue (a poll seen within the last ${WORKER_SEEN_WITHIN_MS / 1000} s). Without one, flows are accepted and wait; it does not change the status code.`,
    }),
    pollers: z
      .object({ workflow: z.number().int(), activity: z.number().int() })
      .nullable()
      .meta({ description: 'Pollers of the task queue by task type; null when Temporal did not say within the deadline.' }),
  })
  .meta({ id: 'Health' });

/** Each dependency gets this long; the checks run side by side so the answer comes within 2 s. */
const CHECK_MS = 1500;

async function dbAnswers(ctx: AppContext, timeoutMs = CHECK_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      sql`select 1`.execute(ctx.deps.db),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), timeoutMs))),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

async function serveDocument(ctx: AppContext, relativePath: string, type: string): Promise<undefined> {
  try {
    ctx.body = await readFile(path.join(DOCUMENTS_DIR, relativePath));
  } catch {
    throw new AppError(404, 'not_found', 'No such document.');
  }
  ctx.type = type;
  ctx.set('Cache-Control', 'public, max-age=300');
  return undefined;
}

export function systemRoutes(r: RouteRegistry): void {
  // The routes are fixed once mounted, so each locale's document is built once per process.
  const documents = new Map<string, unknown>();
  r.add({
    method: 'get',
    path: '/healthz',
    tag: TAG,
    summary: 'Liveness of the gateway and its dependencies',
    description:
      '200 when Postgres and Temporal both answer, 503 otherwise; answers within 2 s (each check has 1.5 s). `worker` says whether a worker polls the task queue (DescribeTaskQueue): flows wait while none does.',
    auth: auth.none,
    responses: {
      200: { description: 'Postgres and Temporal answer.', schema: Health },
      503: { description: 'Postgres or Temporal does not answer.', schema: Health },
    },
    handler: async (ctx) => {
      const t = ctx.deps.temporal;
      const [db, temporal, presence] = await Promise.all([
        dbAnswers(ctx),
        t ? within(temporalAnswers(t, CHECK_MS), CHECK_MS + 100).then(Boolean) : Promise.resolve(false),
        t ? workerPresence(t, CHECK_MS) : Promise.resolve(null),
      ]);
      const ok = db && temporal;
      ctx.set('Cache-Control', 'no-store');
      return {
        status: ok ? 200 : 503,
        body: {
          status: ok ? 'ok' : 'unavailable',
          db: db ? 'ok' : 'unavailable',
          temporal: temporal ? 'ok' : 'unavailable',
          worker: presence && presence.workflowPollers > 0 ? 'ok' : 'unavailable',
          pollers: presence ? { workflow: presence.workflowPollers, activity: presence.activityPollers } : null,
        },
      };
    },
  });

  r.add({
    method: 'get',
    path: '/openapi.json',
    tag: TAG,
    summary: 'Machine-readable contract (OpenAPI 3.0.3)',
    description: `Query locale selects the language of descriptions (${LOCALES.join(', ')}); paths, methods and field names are identical in every locale.`,
    auth: auth.none,
    query: z.object({ locale: z.string().max(20).optional() }),
    responses: { 200: { description: 'The OpenAPI document.', schema: z.record(z.string(), z.unknown()) } },
    handler: (ctx) => {
      const locale = resolveLocale(ctx.query.locale);
      ctx.set('Content-Language', locale);
      let doc = documents.get(locale);
      if (!doc) {
        doc = buildOpenApiDocument(r.routes, { locale, serverUrl: ctx.deps.config.publicBaseUrl });
        documents.set(locale, doc);
      }
      return { body: doc };
    },
  });

  r.add({
    method: 'get',
    path: '/.well-known/agent-card.json',
    tag: TAG,
    summary: 'A2A Agent Card of the gateway',
    auth: auth.none,
    responses: { 200: { description: 'The Agent Card.', schema: z.record(z.string(), z.unknown()) } },
    handler: (ctx) => ({ body: agentCard(ctx.deps.config.publicBaseUrl) }),
  });

  r.add({
    method: 'get',
    path: '/.well-known/jwks.json',
    tag: TAG,
    summary: 'Public keys for match tokens and intent mandates',
    auth: auth.none,
    responses: { 200: { description: 'JSON Web Key Set.', schema: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }) } },
    handler: (ctx) => {
      ctx.set('Cache-Control', 'public, max-age=300');
      return { body: jwks(ctx.deps.signingKeys) };
    },
  });

  r.add({
    method: 'get',
    path: '/skills/{skillName}/SKILL.md',
    tag: TAG,
    summary: 'Skill document for agents',
    auth: auth.none,
    params: z.object({ skillName: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/) }),
    responses: { 200: { description: 'The skill document (Markdown).', schema: z.string(), contentType: 'text/markdown' } },
    errors: [[404, 'not_found', 'No such skill.']],
    handler: (ctx, { params }) => serveDocument(ctx, `skills/${params.skillName}/SKILL.md`, 'text/markdown; charset=utf-8'),
  });

  r.add({
    method: 'get',
    path: '/docs/INTENT_MATCHING_PROTOCOL.md',
    tag: TAG,
    summary: 'Intent-matching protocol note (v0.2)',
    auth: auth.none,
    responses: { 200: { description: 'The protocol note (Markdown).', schema: z.string(), contentType: 'text/markdown' } },
    handler: (ctx) => serveDocument(ctx, 'INTENT_MATCHING_PROTOCOL.md', 'text/markdown; charset=utf-8'),
  });

  r.add({
    method: 'get',
    path: '/v1/whoami',
    tag: TAG,
    summary: 'Check an API key',
    description: 'The cheapest authenticated call: proves the key works and says what it grants.',
    auth: auth.apiKey(),
    responses: {
      200: {
        description: 'The key is valid.',
        schema: z.object({
          status: z.literal('ok'),
          key_id: z.string(),
          developer_id: z.string(),
          scopes: z.array(z.string()),
          request_id: z.string(),
        }),
      },
    },
    handler: (ctx) => {
      const key = ctx.state.apiKey!;
      return {
        body: { status: 'ok', key_id: key.keyId, developer_id: key.developerId, scopes: key.scopes, request_id: ctx.state.requestId },
      };
    },
  });
}
