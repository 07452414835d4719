import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Ajv (draft 2020-12) over the official UCP JSON Schemas in ../shared/protocols/ucp-<version>/source,
 * for tests only. Two things the schemas need before a plain validator can use them:
 *
 * - Their relative `$ref`s are written against their place on disk, which does not always agree with
 *   their `$id` (the discovery profile sits in `discovery/` but names itself under `schemas/`), so every
 *   `$ref` to another file is rewritten to that file's `$id`.
 * - One schema serves requests and responses: `ucp_request` / `ucp_response` annotations say per
 *   operation (create, update, complete, read) whether a member is omitted, required or optional. A
 *   view is made per direction and operation by applying them (omit: the member goes; required: it is
 *   added to `required`; optional: it leaves `required`), as the UCP schema tooling describes.
 */

export type UcpSchemaVersion = '2026-04-08' | '2026-01-11';
export type UcpDirection = 'request' | 'response';
export type UcpOp = 'create' | 'update' | 'complete' | 'read';

const SHARED = fileURLToPath(new URL('../../../shared/protocols/', import.meta.url));

function listJson(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listJson(p));
    else if (name.endsWith('.json')) out.push(p);
  }
  return out;
}

type Json = Record<string, unknown>;

function loadSchemas(version: UcpSchemaVersion): Map<string, Json> {
  const source = path.join(SHARED, `ucp-${version}`, 'source');
  const files = [...listJson(path.join(source, 'schemas')), ...listJson(path.join(source, 'discovery'))];
  if (version === '2026-01-11') files.push(path.join(source, 'services', 'service_schema.json'));
  const byFile = new Map<string, Json>();
  for (const f of files) byFile.set(f, JSON.parse(readFileSync(f, 'utf8')) as Json);
  const idOf = (f: string) => (byFile.get(f)!.$id as string | undefined) ?? `urn:ucp-test:${path.relative(source, f)}`;
  const rewrite = (node: unknown, file: string): unknown => {
    if (Array.isArray(node)) return node.map((n) => rewrite(n, file));
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === '$ref' && typeof v === 'string' && !v.startsWith('#') && !/^[a-z]+:/.test(v)) {
        const [rel, fragment] = v.split('#');
        const target = path.resolve(path.dirname(file), rel!);
        out[k] = byFile.has(target) ? `${idOf(target)}${fragment !== undefined ? `#${fragment}` : ''}` : v;
      } else out[k] = rewrite(v, file);
    }
    return out;
  };
  const schemas = new Map<string, Json>();
  for (const f of files) {
    const s = rewrite(byFile.get(f), f) as Json;
    s.$id = idOf(f);
    schemas.set(s.$id as string, s);
  }
  return schemas;
}

function visibility(annotation: unknown, op: UcpOp): 'omit' | 'required' | 'optional' | null {
  const pick = (v: unknown): 'omit' | 'required' | 'optional' | null => {
    if (v === 'omit' || v === 'required' || v === 'optional') return v;
    const from = (v as { transition?: { from?: unknown } } | null)?.transition?.from;
    return from === 'omit' || from === 'required' || from === 'optional' ? from : null;
  };
  if (typeof annotation === 'string') return pick(annotation);
  if (annotation && typeof annotation === 'object') {
    const a = annotation as Json;
    if ('transition' in a) return pick(a);
    return pick(a[op]);
  }
  return null;
}

/** Applies the annotations of one direction and operation, and strips every `ucp_*` annotation. */
function view(node: unknown, direction: UcpDirection, op: UcpOp): unknown {
  if (Array.isArray(node)) return node.map((n) => view(n, direction, op));
  if (!node || typeof node !== 'object') return node;
  const src = node as Json;
  const out: Json = {};
  for (const [k, v] of Object.entries(src)) if (!k.startsWith('ucp_')) out[k] = view(v, direction, op);
  const props = src.properties as Json | undefined;
  if (props && typeof props === 'object' && !Array.isArray(props)) {
    const required = new Set<string>(Array.isArray(src.required) ? (src.required as string[]) : []);
    const newProps = out.properties as Json;
    for (const [name, p] of Object.entries(props)) {
      const vis = visibility((p as Json | null)?.[`ucp_${direction}`], op);
      if (vis === 'omit') {
        delete newProps[name];
        required.delete(name);
      } else if (vis === 'required') required.add(name);
      else if (vis === 'optional') required.delete(name);
    }
    if (required.size || Array.isArray(src.required)) out.required = [...required];
  }
  return out;
}

export interface UcpSchemaValidator {
  version: UcpSchemaVersion;
  /** Errors of `data` against the schema `ref` (an `$id` with an optional `#/…` pointer) in one view; [] when valid. */
  validate(ref: string, direction: UcpDirection, op: UcpOp, data: unknown): string[];
}

const cache = new Map<UcpSchemaVersion, UcpSchemaValidator>();

export function ucpSchemas(version: UcpSchemaVersion): UcpSchemaValidator {
  const hit = cache.get(version);
  if (hit) return hit;
  const raw = loadSchemas(version);
  const instances = new Map<string, Ajv2020>();
  const compiled = new Map<string, ValidateFunction>();
  const ajvFor = (direction: UcpDirection, op: UcpOp) => {
    const key = `${direction}:${op}`;
    let ajv = instances.get(key);
    if (!ajv) {
      // strict off: the schemas carry their own keywords (`name`, `requires`, …) beside JSON Schema's.
      ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      for (const s of raw.values()) ajv.addSchema(view(s, direction, op) as Json);
      instances.set(key, ajv);
    }
    return ajv;
  };
  const validator: UcpSchemaValidator = {
    version,
    validate(ref, direction, op, data) {
      const key = `${direction}:${op}:${ref}`;
      let fn = compiled.get(key);
      if (!fn) {
        fn = ajvFor(direction, op).compile({ $ref: ref });
        compiled.set(key, fn);
      }
      if (fn(data)) return [];
      return (fn.errors ?? []).map(
        (e) => `${ref} (${direction} ${op}) ${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
      );
    },
  };
  cache.set(version, validator);
  return validator;
}

export const UCP_SCHEMA = 'https://ucp.dev/schemas';
