import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import { AcpErrorBody, ErrorBody } from '../src/schemas/common';
import { ACP_PATH_PREFIX } from './middleware/errors';
import type { AnyRouteSpec } from './routes/registry';
import { RATE_LIMIT_EXEMPT_PATHS } from './middleware/rate-limit';
import { LOCALES, translate, type Locale } from './openapi-locales';
import { operationIdOf } from './openapi-text';
import { TEXT_PATTERN } from '../src/input-guard';
import { MAX_HEADER_BYTES } from './client-errors';

export const CONTRACT_VERSION = '0.1.0';

const INFO_DESCRIPTION =
  'HTTP gateway between shopper-side (demand) agents and merchant-side (supply) agents: recommendations, intents, proposals, match sessions and tokens, checkout authorization, registries, experience commerce, supply operations and the developer console.';

const BODY_METHODS: ReadonlySet<string> = new Set(['post', 'put', 'patch']);

function buildRegistry(routes: AnyRouteSpec[]): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'API key issued in the developer console: Authorization: Bearer <API_KEY>.',
  });
  registry.registerComponent('securitySchemes', 'DeveloperToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'Developer console session token returned by register and login.',
  });
  registry.registerComponent('securitySchemes', 'SupplyKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Supply-Key',
    description: 'Supply/admin key.',
  });
  registry.registerComponent('securitySchemes', 'MerchantToken', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Merchant-Token',
    description: 'Registration token of a merchant agent.',
  });
  registry.registerComponent('securitySchemes', 'AgentToken', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Agent-Token',
    description: 'Registration token of a commerce agent.',
  });

  for (const r of routes) {
    const errors = [
      ...(r.missingFields ? [[400, r.missingCode ?? 'missing_fields', 'A required field is missing; `fields` names it.'] as const] : []),
      ...(r.params || r.query || r.body
        ? [[400, r.invalidCode ?? 'invalid_payload', 'The request failed validation; `fields` names what is wrong.'] as const]
        : []),
      // The registry answers a path parameter that cannot name anything (too long, wrong shape) with 404.
      ...(r.params && !(r.errors ?? []).some(([status, code]) => status === 404 && code === (r.notFoundCode ?? 'not_found'))
        ? [[404, r.notFoundCode ?? 'not_found', 'A path parameter cannot name anything (wrong shape or length).'] as const]
        : []),
      // What the body parser answers for any body-carrying method, before the route sees the body.
      ...(BODY_METHODS.has(r.method)
        ? ([
            [400, 'invalid_json', 'The body is not valid JSON, or nests deeper than 64 levels.'],
            [
              400,
              'invalid_content_encoding',
              'The body does not match its Content-Encoding, or names one not decoded (identity, gzip, deflate, br are).',
            ],
            [413, 'payload_too_large', 'The body exceeds 1 MB.'],
            ...(r.body ? [[415, 'unsupported_media_type', 'The body is not application/json.'] as const] : []),
          ] as const)
        : []),
      // The registry refuses a query parameter the operation does not declare (api/routes/registry.ts).
      ...(r.extraQueryIgnored
        ? []
        : [[400, 'invalid_query', 'A query parameter the operation does not declare; `fields` names it.'] as const]),
      ...r.auth.errors,
      ...(r.errors ?? []),
      // Node's HTTP parser answers it before any route runs, on every path (api/client-errors.ts).
      [
        431,
        'request_header_fields_too_large',
        `The request line and headers exceed ${MAX_HEADER_BYTES / 1024} KB (a very long query or a large header).`,
      ] as const,
      ...(RATE_LIMIT_EXEMPT_PATHS.has(r.path)
        ? []
        : [[429, 'rate_limited', 'Too many requests; retry after the Retry-After header (seconds).'] as const]),
    ];
    // The ACP paths answer ACP's flat errors (api/middleware/errors.ts), every other path the envelope.
    // The 431 is the exception: Node's parser answers it before Koa (api/client-errors.ts), on any
    // path, in the envelope.
    const errorSchemaOf = (status: number) => (r.path.startsWith(ACP_PATH_PREFIX) && status !== 431 ? AcpErrorBody : ErrorBody);
    const errorResponses: Record<number, { description: string; content: Record<string, { schema: ReturnType<typeof errorSchemaOf> }> }> =
      {};
    for (const [status, code, description] of errors) {
      const prior = errorResponses[status];
      const line = `\`${code}\`: ${description}`;
      errorResponses[status] = {
        description: prior ? `${prior.description} ${line}` : line,
        content: { 'application/json': { schema: errorSchemaOf(status) } },
      };
    }
    registry.registerPath({
      method: r.method,
      path: r.path,
      operationId: operationIdOf(r.method, r.path),
      tags: [r.tag],
      summary: r.summary,
      description: r.description,
      deprecated: r.deprecated,
      security: r.auth.security,
      request: {
        params: r.params,
        query: r.query,
        body: r.body ? { required: Boolean(r.bodyRequired), content: { 'application/json': { schema: r.body } } } : undefined,
      },
      responses: {
        ...Object.fromEntries(
          Object.entries(r.responses).map(([status, res]) => [
            status,
            {
              description: res.description,
              ...(res.schema ? { content: { [res.contentType ?? 'application/json']: { schema: res.schema } } } : {}),
              ...(res.links ? { links: res.links } : {}),
            },
          ]),
        ),
        ...errorResponses,
      },
    });
  }
  return registry;
}

/**
 * `Schema.nullable()` of a named schema comes out as `allOf: [$ref, {nullable: true}]`, which no
 * validator lets null through (the `$ref` branch is an object). OpenAPI 3.0 says it as
 * `{allOf: [$ref], nullable: true}`: rewritten in place, iteratively, over the whole document.
 */
function nullableRefs(doc: unknown): void {
  const stack: unknown[] = [doc];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    const obj = node as Record<string, unknown>;
    const allOf = obj.allOf;
    if (Array.isArray(allOf)) {
      const marker = allOf.findIndex(
        (x) => x && typeof x === 'object' && Object.keys(x).length === 1 && (x as { nullable?: unknown }).nullable === true,
      );
      if (marker >= 0) {
        allOf.splice(marker, 1);
        obj.nullable = true;
      }
    }
    for (const v of Object.values(obj)) if (v && typeof v === 'object') stack.push(v);
  }
}

type SchemaNode = Record<string, unknown>;

/** What the description of an open request object says (the rule its schema cannot state). */
const FREE_FORM_RULE = 'No member name and no string inside may contain NUL (U+0000).';
const OPEN_OBJECT_RULE = `Members beyond those listed are accepted. ${FREE_FORM_RULE}`;

/**
 * The input guard refuses NUL in every string of a path, query or body (src/input-guard.ts). Every
 * request string without a pattern, format or enum of its own says so with TEXT_PATTERN; a string
 * with its own pattern excludes NUL in it. Open objects (free-form ones and typed ones that keep
 * members they do not name) cannot say it in a schema: OpenAPI 3.0 has no `propertyNames` for their
 * keys, and their values are of any type; their description says it instead (OPEN_OBJECT_RULE,
 * docs/CONTRACT.md#input-and-limits).
 */
function declareTextRule(document: unknown): void {
  const doc = document as { paths?: unknown; components?: { schemas?: Record<string, SchemaNode> } };
  const named = doc.components?.schemas ?? {};
  const stack: unknown[] = [];
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Record<string, SchemaNode>>)) {
    for (const op of Object.values(item)) {
      for (const p of (op.parameters ?? []) as SchemaNode[]) if (p.in === 'path' || p.in === 'query') stack.push(p.schema);
      const content = (op.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content ?? {};
      for (const media of Object.values(content)) stack.push(media.schema);
    }
  }
  const seen = new Set<unknown>();
  while (stack.length) {
    const node = stack.pop() as SchemaNode | undefined;
    if (!node || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    if (typeof node.$ref === 'string') {
      stack.push(named[node.$ref.slice('#/components/schemas/'.length)]);
      continue;
    }
    if (node.type === 'string' && node.pattern === undefined && node.format === undefined && node.enum === undefined) {
      node.pattern = TEXT_PATTERN;
    }
    if (node.type === 'object' && node.additionalProperties && typeof node.additionalProperties === 'object') {
      const rule = node.properties ? OPEN_OBJECT_RULE : FREE_FORM_RULE;
      node.description = typeof node.description === 'string' ? `${node.description} ${rule}` : rule;
    }
    for (const key of ['items', 'additionalProperties', 'not']) stack.push(node[key]);
    for (const key of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(node[key])) stack.push(...(node[key] as unknown[]));
    if (node.properties && typeof node.properties === 'object') stack.push(...Object.values(node.properties));
  }
}

/** The OpenAPI 3.0.3 document, in one locale; paths, methods and field names never change with it. */
export function buildOpenApiDocument(routes: AnyRouteSpec[], opts: { locale: Locale; serverUrl: string }) {
  const doc = new OpenApiGeneratorV3(buildRegistry(routes).definitions).generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Commerce Intent-Matching Gateway',
      version: CONTRACT_VERSION,
      description: INFO_DESCRIPTION,
    },
    servers: [{ url: opts.serverUrl }],
  });
  nullableRefs(doc);
  declareTextRule(doc);
  return opts.locale === 'en' ? doc : translate(doc, opts.locale);
}

export function resolveLocale(requested: unknown): Locale {
  if (typeof requested !== 'string') return 'en';
  const exact = LOCALES.find((l) => l.toLowerCase() === requested.toLowerCase());
  if (exact) return exact;
  const base = requested.split(/[-_]/)[0]?.toLowerCase();
  return LOCALES.find((l) => l.split('-')[0]!.toLowerCase() === base) ?? 'en';
}
