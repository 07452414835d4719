import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z, type ZodType } from 'zod';
import { AppError } from '../../src/errors';
import type { ApiKeyScope } from '../../src/schemas/console';
import type { AppContext, AppState } from '../context';
import {
  requireApiKey,
  requireApiKeyUnlessPortalDemo,
  requireDeveloper,
  requireSupplyKey,
  requireSupplyKeyOrApiKey,
  requireSupplyKeyOrApiKeyAnd,
} from '../middleware/auth';
import { idempotency } from '../middleware/idempotency';
import { routeBudget } from '../middleware/rate-limit';
import { describeBadInput, dropPrototypeKeys, findBadInput } from '../../src/input-guard';
import { operationIdOf } from '../openapi-text';

/**
 * One registry of routes: each definition mounts a Koa route (auth → idempotency → zod validation →
 * handler) and describes the same route to the OpenAPI generator, so the published contract and the
 * served API cannot drift apart.
 */

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete' | 'put';
export type ErrorRow = [status: number, code: string, description: string];

export interface AuthSpec {
  security: Array<Record<string, string[]>>;
  middleware: Middleware<AppState>[];
  errors: ErrorRow[];
}

const apiKeyErrors: ErrorRow[] = [
  [401, 'invalid_api_key', 'Missing, invalid, revoked or deleted API key.'],
  [403, 'insufficient_scope', 'The API key lacks the scope this operation needs.'],
];

export const auth = {
  none: { security: [], middleware: [], errors: [] } as AuthSpec,
  apiKey: (scope?: ApiKeyScope): AuthSpec => ({
    security: [{ ApiKey: [] }],
    middleware: [requireApiKey(scope)],
    errors: apiKeyErrors,
  }),
  /** API key, or nothing at all on a portal demo channel (security `{}` marks the credential optional). */
  apiKeyOrPortalDemo: (scope: ApiKeyScope): AuthSpec => ({
    security: [{ ApiKey: [] }, {}],
    middleware: [requireApiKeyUnlessPortalDemo(scope)],
    errors: [...apiKeyErrors, [429, 'rate_limited', 'Portal demo calls from this IP exceeded PORTAL_DEMO_RATE_LIMIT_PER_IP per window.']],
  }),
  developer: {
    security: [{ DeveloperToken: [] }],
    middleware: [requireDeveloper],
    errors: [[401, 'invalid_developer_token', 'Missing or invalid developer session token.']],
  } as AuthSpec,
  supply: {
    security: [{ SupplyKey: [] }],
    middleware: [requireSupplyKey],
    errors: [[401, 'invalid_supply_key', 'Invalid or missing supply key.']],
  } as AuthSpec,
  supplyOrApiKey: (scope: ApiKeyScope): AuthSpec => ({
    security: [{ SupplyKey: [] }, { ApiKey: [] }],
    middleware: [requireSupplyKeyOrApiKey(scope)],
    errors: [[401, 'unauthorized', 'Invalid or missing supply key or API key.'], apiKeyErrors[1]!],
  }),
  /** API key, optionally with a merchant registration token that widens what the call may read (docs/TENANCY.md). */
  apiKeyOptionalToken: (
    scope: ApiKeyScope,
    scheme: 'MerchantToken',
    tokenMiddleware: Middleware<AppState>,
    errors: ErrorRow[],
  ): AuthSpec => ({
    security: [{ ApiKey: [] }, { ApiKey: [], [scheme]: [] }],
    middleware: [requireApiKey(scope), tokenMiddleware],
    errors: [...apiKeyErrors, ...errors],
  }),
  /** Supply key, or API key plus merchant registration token: operators for everyone, a merchant for itself. */
  supplyOrApiKeyAnd: (
    scope: ApiKeyScope,
    scheme: 'MerchantToken',
    tokenMiddleware: Middleware<AppState>,
    errors: ErrorRow[],
  ): AuthSpec => ({
    security: [{ SupplyKey: [] }, { ApiKey: [], [scheme]: [] }],
    middleware: [requireSupplyKeyOrApiKeyAnd(scope, tokenMiddleware)],
    errors: [[401, 'unauthorized', 'Invalid or missing supply key or API key.'], apiKeyErrors[1]!, ...errors],
  }),
  /** API key plus a merchant or agent registration token, the token middleware supplied by the owning domain. */
  apiKeyAnd: (
    scope: ApiKeyScope,
    scheme: 'MerchantToken' | 'AgentToken',
    tokenMiddleware: Middleware<AppState>,
    errors: ErrorRow[],
  ): AuthSpec => ({
    security: [{ ApiKey: [], [scheme]: [] }],
    middleware: [requireApiKey(scope), tokenMiddleware],
    errors: [...apiKeyErrors, ...errors],
  }),
};

export interface ResponseSpec {
  description: string;
  schema?: ZodType;
  contentType?: string;
  /** The operations this answer's ids feed, by link name (OpenAPI `links`; see linkTo). */
  links?: Record<string, ResponseLink>;
}

/**
 * An OpenAPI link: the operation a response's ids feed and where each value of its request comes
 * from, as a runtime expression (`$response.body#/intent/intent_id`, `$request.path.matchSessionId`).
 * Parameters are named with their location (`path.intentId`, `query.intent_id`). `requestBody` maps
 * members of the target's body to expressions, to be merged into the rest of the body: OpenAPI 3.0
 * reads it as a literal (or one expression); the contract fuzzer's stateful phase evaluates the
 * expressions inside, so its chains follow real ids rather than guessed ones.
 */
export interface ResponseLink {
  operationId: string;
  parameters?: Record<string, string>;
  requestBody?: Record<string, string>;
}

export const linkTo = (method: HttpMethod, path: string, values: Omit<ResponseLink, 'operationId'>): ResponseLink => ({
  operationId: operationIdOf(method, path),
  ...values,
});

type Infer<T> = T extends ZodType ? z.infer<T> : undefined;

export interface Reply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteSpec<
  P extends ZodType | undefined = undefined,
  Q extends ZodType | undefined = undefined,
  B extends ZodType | undefined = undefined,
> {
  method: HttpMethod;
  /** OpenAPI form: `/v1/developers/keys/{keyId}`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  deprecated?: boolean;
  auth: AuthSpec;
  params?: P;
  query?: Q;
  body?: B;
  bodyRequired?: boolean;
  /** Body members whose absence is a 400 `missing_fields` (docs/CONTRACT.md#errors) (checked before validation). */
  missingFields?: string[];
  /**
   * The code of a missing-fields 400 when the operation has its own (default `missing_fields`); with
   * it, a required body that is absent is answered the same way (every member of it is missing).
   */
  missingCode?: string;
  /** Error code for a request that fails validation (the operation's own code, default `invalid_payload`). */
  invalidCode?: string;
  /** A path parameter that cannot name anything is a 404 with this code (default `not_found`). */
  notFoundCode?: string;
  /**
   * Why this route ignores query parameters it does not declare instead of answering 400
   * `invalid_query` (e.g. links handed to shoppers, which pick up tracking parameters on the way).
   */
  extraQueryIgnored?: string;
  responses: Record<number, ResponseSpec>;
  errors?: ErrorRow[];
  /** Returns the JSON reply, or undefined when it wrote `ctx` itself (non-JSON documents). */
  handler: (
    ctx: AppContext,
    input: { params: Infer<P>; query: Infer<Q>; body: Infer<B> },
  ) => Promise<Reply | undefined> | Reply | undefined;
}

// The handler's input is contravariant, so a list of specs with different schemas needs the existential `any`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRouteSpec = RouteSpec<any, any, any>;

export const koaPath = (openApiPath: string) => openApiPath.replace(/\{(\w+)\}/g, ':$1');

function validationError(code: string, where: string, error: z.ZodError): AppError {
  // Body members are named bare (`intent_id`); an issue with no path is about the body itself.
  const name = (path: PropertyKey[]) => [where, ...path].filter((p) => p !== '').join('.') || 'body';
  // A member a strict object does not know is named itself, after the object that holds it (if any).
  const fields = error.issues.flatMap((i) =>
    i.code === 'unrecognized_keys'
      ? [...(i.path.length ? [name(i.path)] : []), ...i.keys.map((k) => name([...i.path, k]))]
      : [name(i.path)],
  );
  const first = error.issues[0];
  if (first?.code === 'unrecognized_keys') {
    const unknown = first.keys.map((k) => name([...first.path, k]));
    return new AppError(400, code, `Unknown field(s): ${unknown.join(', ')}.`, { fields: [...new Set(fields)] });
  }
  return new AppError(400, code, `Invalid ${name(first?.path ?? [])}: ${first?.message ?? 'invalid value'}`, {
    fields: [...new Set(fields)],
  });
}

/** The query parameters a route declares (none when it has no query schema). */
function declaredQuery(spec: AnyRouteSpec): Set<string> {
  const shape = (spec.query as { shape?: Record<string, unknown> } | undefined)?.shape;
  return new Set(shape ? Object.keys(shape) : []);
}

/**
 * A query parameter the route does not declare is refused rather than silently dropped: a misspelt
 * filter (`?chanel=web`) would otherwise answer as if no filter had been asked for.
 */
function refuseUndeclaredQuery(spec: AnyRouteSpec, query: Record<string, unknown>): void {
  if (spec.extraQueryIgnored) return;
  const declared = declaredQuery(spec);
  const unknown = Object.keys(query).filter((k) => !declared.has(k));
  if (unknown.length) {
    const named = unknown.map((k) => `query.${k}`);
    throw new AppError(400, 'invalid_query', `Unknown query parameter(s): ${unknown.map((k) => JSON.stringify(k)).join(', ')}.`, {
      fields: named,
    });
  }
}

function parse<T extends ZodType>(schema: T | undefined, value: unknown, where: string, code: string): unknown {
  if (!schema) return undefined;
  const res = schema.safeParse(value);
  if (!res.success) throw validationError(code, where, res.error);
  return res.data;
}

function assertPresent(fields: string[], body: unknown, code = 'missing_fields'): void {
  const given = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const missing = fields.filter((f) => given[f] === undefined || given[f] === null || given[f] === '');
  if (missing.length) throw new AppError(400, code, `Missing required field(s): ${missing.join(', ')}.`, { fields: missing });
}

export function methodNotAllowed(method: string, path: string, allow: string[]): AppError {
  return new AppError(405, 'method_not_allowed', `${method} is not allowed on ${path}; allowed: ${allow.join(', ')}.`, undefined, {
    Allow: allow.join(', '),
  });
}

function hasBody(ctx: AppContext): boolean {
  return Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
}

/** A path template as a matcher (case-insensitive, optional trailing slash, as the router matches). */
function templateMatcher(openApiPath: string): { re: RegExp; params: number } {
  const escaped = openApiPath.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return { re: new RegExp(`^${escaped.join('[^/]+')}/?$`, 'i'), params: escaped.length - 1 };
}

export class RouteRegistry {
  readonly routes: AnyRouteSpec[] = [];
  private matchers = new Map<AnyRouteSpec, { re: RegExp; params: number }>();

  /**
   * The routes that own `path`, resolved as OpenAPI resolves paths: a concrete path wins over a
   * template (`/v1/merchant/register` is not `/v1/merchant/{merchantId}`), so among the templates
   * that match, only those with the fewest parameters own it.
   */
  owners(path: string): AnyRouteSpec[] {
    let best = Infinity;
    let found: AnyRouteSpec[] = [];
    for (const spec of this.routes) {
      const m = this.matcherOf(spec);
      if (!m.re.test(path)) continue;
      if (m.params < best) {
        best = m.params;
        found = [spec];
      } else if (m.params === best) found.push(spec);
    }
    return found;
  }

  /** The `Allow` header of `path` (empty when no route owns it). */
  allowedMethods(path: string): string[] {
    const methods = new Set(this.owners(path).map((s) => s.method.toUpperCase()));
    if (!methods.size) return [];
    if (methods.has('GET')) methods.add('HEAD');
    methods.add('OPTIONS');
    return [...methods].sort();
  }

  private matcherOf(spec: AnyRouteSpec) {
    let m = this.matchers.get(spec);
    if (!m) {
      m = templateMatcher(spec.path);
      this.matchers.set(spec, m);
    }
    return m;
  }

  add<P extends ZodType | undefined = undefined, Q extends ZodType | undefined = undefined, B extends ZodType | undefined = undefined>(
    spec: RouteSpec<P, Q, B>,
  ): this {
    this.routes.push(spec as AnyRouteSpec);
    return this;
  }

  mount(router: Router<AppState>): void {
    for (const spec of this.routes) {
      const code = spec.invalidCode ?? 'invalid_payload';
      // First of all (before credentials and idempotency touch Postgres): text no column can hold,
      // in what this route reads (path, query, body), is the route's 400 naming the field.
      const guard: Middleware<AppState> = async (c, next) => {
        const ctx = c as AppContext;
        // A template route never answers a concrete path another route owns (GET on the POST-only
        // `/v1/merchant/register` is a 405, not a lookup of the merchant "register").
        if (!this.owners(ctx.path).includes(spec)) throw methodNotAllowed(ctx.method, ctx.path, this.allowedMethods(ctx.path));
        const bad =
          (spec.params && findBadInput(ctx.params, 'path')) ||
          (spec.query && findBadInput(ctx.query, 'query')) ||
          (spec.body && hasBody(ctx) && findBadInput((ctx.request as { body?: unknown }).body, ''));
        if (bad) throw new AppError(400, code, describeBadInput(bad), { fields: [bad.field] });
        await next();
      };
      const run: Middleware<AppState> = async (c) => {
        const ctx = c as AppContext;
        const rawBody = (ctx.request as { body?: unknown }).body;
        if (spec.body && hasBody(ctx) && !ctx.is('application/json', '+json')) {
          throw new AppError(415, 'unsupported_media_type', 'Send the request body as application/json.');
        }
        // A route with its own code for absent members (missingCode) answers an absent body with it too.
        if (spec.body && spec.bodyRequired && !hasBody(ctx) && !spec.missingCode) {
          throw new AppError(400, code, 'A JSON request body is required.', { fields: ['body'] });
        }
        if (spec.missingFields) assertPresent(spec.missingFields, rawBody, spec.missingCode);
        // A path parameter that cannot name anything means there is nothing there: 404, not 400.
        const params = spec.params?.safeParse(ctx.params);
        if (params && !params.success) throw new AppError(404, spec.notFoundCode ?? 'not_found', 'Not found.');
        refuseUndeclaredQuery(spec, ctx.query);
        const input = {
          params: params?.data,
          query: parse(spec.query, ctx.query, 'query', code),
          body: parse(spec.body, rawBody === undefined || !hasBody(ctx) ? {} : rawBody, '', code),
        };
        // After validation, so an object that admits no unknown members has refused a `__proto__`
        // member by name; free-form values (metadata, payload…) pass through zod as they came.
        dropPrototypeKeys(input.body);
        const reply = await spec.handler(ctx, input as never);
        if (reply) {
          ctx.status = reply.status ?? 200;
          for (const [k, v] of Object.entries(reply.headers ?? {})) ctx.set(k, v);
          ctx.body = reply.body;
        }
      };
      // A console credential route's own per-IP budget, spent before its credentials are checked.
      const budget = routeBudget(spec.method, spec.path);
      router.register(
        koaPath(spec.path),
        [spec.method.toUpperCase()],
        [guard, ...(budget ? [budget] : []), ...spec.auth.middleware, idempotency, run],
      );
    }
  }
}
