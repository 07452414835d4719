import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { fileURLToPath } from 'node:url';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import canonicalize from 'canonicalize';
import { parse } from 'yaml';

/**
 * The official ACP 2026-04-17 OpenAPI documents (../shared/protocols, read by tests only), compiled
 * with Ajv as JSON Schema 2020-12 (what OpenAPI 3.1 schemas are), and what the loopback ACP seller
 * and PSP share: validating a request's headers and body and a response's body against the operation
 * the documents describe, and the RFC's idempotency rules.
 */

const SPEC_DIR = fileURLToPath(new URL('../../../shared/protocols/acp-2026-04-17/spec/2026-04-17/openapi/', import.meta.url));
const BASE_ID = 'https://acp-spec.test/openapi/';

export type AcpSpecFile = 'openapi.agentic_checkout.yaml' | 'openapi.delegate_payment.yaml' | 'openapi.agentic_checkout_webhook.yaml';
const FILES: AcpSpecFile[] = ['openapi.agentic_checkout.yaml', 'openapi.delegate_payment.yaml', 'openapi.agentic_checkout_webhook.yaml'];

type Json = Record<string, any>;

let loaded: { ajv: Ajv2020; docs: Map<AcpSpecFile, Json> } | undefined;

function spec() {
  if (loaded) return loaded;
  // OpenAPI keywords that are not JSON Schema (example, nullable, discriminator) are annotations here.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const docs = new Map<AcpSpecFile, Json>();
  for (const file of FILES) {
    const doc = parse(readFileSync(SPEC_DIR + file, 'utf8')) as Json;
    // The webhook document refers to the checkout document by relative path: one base makes that resolve.
    doc.$id = BASE_ID + file;
    ajv.addSchema(doc);
    docs.set(file, doc);
  }
  loaded = { ajv, docs };
  return loaded;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const validators = new Map<string, ValidateFunction>();

function validatorAt(file: AcpSpecFile, jsonPointer: string): ValidateFunction {
  const ref = `${BASE_ID}${file}#${jsonPointer}`;
  let v = validators.get(ref);
  if (!v) {
    v = spec().ajv.compile({ $ref: ref });
    validators.set(ref, v);
  }
  return v;
}

const describe = (v: ValidateFunction, where: string) =>
  (v.errors ?? []).map((e) => `${where}: ${e.instancePath || '(root)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);

/** Errors of `value` against a component schema (empty when it conforms). */
export function checkSchema(file: AcpSpecFile, schemaName: string, value: unknown, where: string): string[] {
  const v = validatorAt(file, `/${pointer('components', 'schemas', schemaName)}`);
  return v(value) ? [] : describe(v, where);
}

function resolveRef(file: AcpSpecFile, node: Json): Json {
  if (typeof node?.$ref !== 'string' || !node.$ref.startsWith('#/')) return node;
  let target: any = spec().docs.get(file);
  for (const part of node.$ref.slice(2).split('/')) target = target[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return target as Json;
}

function operation(file: AcpSpecFile, pathTemplate: string, method: string) {
  const item = spec().docs.get(file)!.paths[pathTemplate] as Json;
  const op = item[method.toLowerCase()] as Json;
  if (!op) throw new Error(`${file} has no ${method} ${pathTemplate}`);
  return { item, op };
}

/**
 * Errors of a request's headers against the operation's header parameters (path-level and operation-
 * level, the operation's winning): every required one present, every present one valid.
 */
export function checkRequestHeaders(
  file: AcpSpecFile,
  pathTemplate: string,
  method: string,
  headers: IncomingHttpHeaders,
  where: string,
): string[] {
  const { item, op } = operation(file, pathTemplate, method);
  const params = new Map<string, Json>();
  for (const p of [...((item.parameters as Json[]) ?? []), ...((op.parameters as Json[]) ?? [])]) {
    const param = resolveRef(file, p);
    if (param.in === 'header') params.set(String(param.name).toLowerCase(), param);
  }
  const errors: string[] = [];
  for (const [name, param] of params) {
    const value = headers[name];
    if (value === undefined) {
      if (param.required) errors.push(`${where}: header ${param.name} is required`);
      continue;
    }
    const v = spec().ajv.compile(param.schema as Json);
    if (!v(Array.isArray(value) ? value[0] : value)) errors.push(...describe(v, `${where}: header ${param.name}`));
  }
  return errors;
}

/** Errors of a request body against the operation's request schema. */
export function checkRequestBody(file: AcpSpecFile, pathTemplate: string, method: string, body: unknown, where: string): string[] {
  const { op } = operation(file, pathTemplate, method);
  if (!op.requestBody) return body === undefined ? [] : [`${where}: the operation takes no body`];
  if (body === undefined) return op.requestBody.required ? [`${where}: a body is required`] : [];
  const v = validatorAt(
    file,
    `/${pointer('paths', pathTemplate, method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema')}`,
  );
  return v(body) ? [] : describe(v, where);
}

/**
 * Errors of a response body against what the operation declares for its status (the exact status,
 * else its class `4XX`/`5XX`, else `default`). A status the operation does not declare is an error.
 *
 * One defect of the published document is worked around: `CheckoutSessionWithOrder` (complete's 200)
 * is `allOf: [CheckoutSessionBase, {order}]`, but the base closes itself with
 * `additionalProperties: false` without listing `order`, so no body with the required `order`
 * conforms. It is checked as the two parts it means: the session without `order` against
 * `CheckoutSession`, and `order` (required) against `Order`.
 */
export function checkResponseBody(
  file: AcpSpecFile,
  pathTemplate: string,
  method: string,
  status: number,
  body: unknown,
  where: string,
): string[] {
  const { op } = operation(file, pathTemplate, method);
  const responses = op.responses as Json;
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => responses[k] !== undefined);
  if (!key) return [`${where}: status ${status} is not declared for ${method} ${pathTemplate}`];
  const response = resolveRef(file, responses[key] as Json);
  const schema = response.content?.['application/json']?.schema as Json | undefined;
  if (!schema) return body === undefined ? [] : [`${where}: status ${status} declares no body`];
  if (body === undefined) return [`${where}: status ${status} requires a body`];
  if (schema.$ref === '#/components/schemas/CheckoutSessionWithOrder') {
    const { order, ...session } = (body ?? {}) as Json;
    if (order === undefined) return [`${where}: a completed session must carry its order`];
    return [...checkSchema(file, 'CheckoutSession', session, where), ...checkSchema(file, 'Order', order, `${where} order`)];
  }
  const base = responses[key].$ref
    ? `/${pointer('components', 'responses', String(responses[key].$ref).split('/').pop()!, 'content', 'application/json', 'schema')}`
    : `/${pointer('paths', pathTemplate, method.toLowerCase(), 'responses', key, 'content', 'application/json', 'schema')}`;
  const v = validatorAt(file, base);
  return v(body) ? [] : describe(v, where);
}

/** One stored answer for an Idempotency-Key. */
export interface StoredAnswer {
  status: number;
  body: unknown;
}

/**
 * The RFC's idempotency rules (rfc.agentic_checkout.md §6, rfc.delegate_payment.md §5): keys scoped to
 * the caller's identity and the endpoint path; bodies compared by semantic JSON equality (canonical
 * JSON); the same key and body replays the stored status and body; a different body is a 422
 * conflict; a key whose first request is still being processed is a 409; 5xx answers are never stored.
 */
export class IdempotencyStore {
  private readonly entries = new Map<string, { fingerprint: string; answer: StoredAnswer | null }>();

  private static fingerprint(body: unknown): string {
    return createHash('sha256')
      .update(canonicalize(body ?? null) ?? 'null')
      .digest('hex');
  }

  begin(
    scope: string,
    key: string,
    body: unknown,
  ): { kind: 'new' } | { kind: 'replay'; answer: StoredAnswer } | { kind: 'conflict' } | { kind: 'in_flight' } {
    const id = `${scope}\n${key}`;
    const fingerprint = IdempotencyStore.fingerprint(body);
    const entry = this.entries.get(id);
    if (!entry) {
      this.entries.set(id, { fingerprint, answer: null });
      return { kind: 'new' };
    }
    if (entry.fingerprint !== fingerprint) return { kind: 'conflict' };
    if (!entry.answer) return { kind: 'in_flight' };
    return { kind: 'replay', answer: entry.answer };
  }

  finish(scope: string, key: string, answer: StoredAnswer): void {
    const id = `${scope}\n${key}`;
    if (answer.status >= 500) this.entries.delete(id);
    else this.entries.get(id)!.answer = answer;
  }

  /** The request ended without an answer to store (it hung, the server dropped it): a retry is a fresh request. */
  forget(scope: string, key: string): void {
    this.entries.delete(`${scope}\n${key}`);
  }
}
