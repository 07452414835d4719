/**
 * Where the human texts of the OpenAPI document sit, named by what they describe rather than by
 * their English wording, so a translation survives any copy edit of the English and a translation
 * whose operation or field is gone can be found (test/openapi-locales.test.ts).
 *
 * A text is addressed by a scope and a key:
 * - `document`: `info`, and `securityScheme.<name>`;
 * - `operation`, by operation id: `summary`, `description`, `response.<status>`, `param.<name>`, and
 *   `field.<where>.<path>` for a schema written inline in the operation (`where` is `body`, the
 *   response status, or `param.<name>` for a parameter's schema);
 * - `schema`, by component name: `''` for the schema itself, else the field path.
 * A field path joins property names with `.`, adds `[]` for array items, `{}` for map values and
 * `|n` for the n-th branch of a union.
 */

export interface OperationTexts {
  summary?: string;
  description?: string;
  /** By HTTP status: the whole response description (success text or the error rows). */
  responses?: Record<string, string>;
  /** By parameter name (path, query or header). */
  params?: Record<string, string>;
  /** Inline schemas of the operation: `body.<path>`, `<status>.<path>` or `param.<name>.<path>`. */
  fields?: Record<string, string>;
}

/** One locale's texts. Anything without a translation stays English (the documented fallback). */
export interface LocaleTexts {
  document?: Record<string, string>;
  operations?: Record<string, OperationTexts>;
  /** By component schema name, then field path (`''`: the schema's own description). */
  schemas?: Record<string, Record<string, string>>;
}

type Holder = Record<string, unknown>;
type Visit = (at: TextAddress, holder: Holder, prop: 'summary' | 'description') => void;

export type TextAddress =
  | { scope: 'document'; key: string }
  | { scope: 'operation'; operationId: string; group: 'summary' | 'description' | 'responses' | 'params' | 'fields'; key: string }
  | { scope: 'schema'; schema: string; key: string };

const isObject = (v: unknown): v is Holder => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

function walkSchema(node: unknown, path: string, visit: (path: string, holder: Holder) => void): void {
  if (!isObject(node)) return;
  if (typeof node.description === 'string') visit(path, node);
  const join = (p: string) => (path ? `${path}.${p}` : p);
  if (isObject(node.properties)) for (const [k, v] of Object.entries(node.properties)) walkSchema(v, join(k), visit);
  if (node.items) walkSchema(node.items, `${path}[]`, visit);
  if (isObject(node.additionalProperties)) walkSchema(node.additionalProperties, `${path}{}`, visit);
  for (const union of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = node[union];
    if (Array.isArray(branches)) branches.forEach((b, i) => walkSchema(b, `${path}|${i}`, visit));
  }
}

/** The operation id of a route: its method and path, camel-cased (`post /v1/match/{id}/accept` → `postV1MatchIdAccept`). */
export function operationIdOf(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/** Calls `visit` for every summary and description of an OpenAPI 3.0 document, with its address. */
export function visitTexts(doc: unknown, visit: Visit): void {
  if (!isObject(doc)) return;
  if (isObject(doc.info) && typeof doc.info.description === 'string') visit({ scope: 'document', key: 'info' }, doc.info, 'description');
  const components = isObject(doc.components) ? doc.components : {};
  for (const [name, scheme] of Object.entries(isObject(components.securitySchemes) ? components.securitySchemes : {})) {
    if (isObject(scheme) && typeof scheme.description === 'string') {
      visit({ scope: 'document', key: `securityScheme.${name}` }, scheme, 'description');
    }
  }
  for (const [name, schema] of Object.entries(isObject(components.schemas) ? components.schemas : {})) {
    walkSchema(schema, '', (key, holder) => visit({ scope: 'schema', schema: name, key }, holder, 'description'));
  }
  for (const ops of Object.values(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(ops)) continue;
    for (const op of Object.values(ops)) {
      if (!isObject(op) || typeof op.operationId !== 'string') continue;
      const operationId = op.operationId;
      type Group = 'summary' | 'description' | 'responses' | 'params' | 'fields';
      const at = (group: Group, key: string): TextAddress => ({ scope: 'operation', operationId, group, key });
      if (typeof op.summary === 'string') visit(at('summary', ''), op, 'summary');
      if (typeof op.description === 'string') visit(at('description', ''), op, 'description');
      for (const p of Array.isArray(op.parameters) ? op.parameters : []) {
        if (!isObject(p) || typeof p.name !== 'string') continue;
        if (typeof p.description === 'string') visit(at('params', p.name), p, 'description');
        const where = `param.${p.name}`;
        walkSchema(p.schema, '', (path, holder) => visit(at('fields', path ? `${where}.${path}` : where), holder, 'description'));
      }
      const inline = (where: string, content: unknown) => {
        for (const media of Object.values(isObject(content) ? content : {})) {
          if (!isObject(media)) continue;
          walkSchema(media.schema, '', (path, holder) => visit(at('fields', path ? `${where}.${path}` : where), holder, 'description'));
        }
      };
      if (isObject(op.requestBody)) inline('body', op.requestBody.content);
      for (const [status, res] of Object.entries(isObject(op.responses) ? op.responses : {})) {
        if (!isObject(res)) continue;
        if (typeof res.description === 'string') visit(at('responses', status), res, 'description');
        inline(status, res.content);
      }
    }
  }
}

/** The translation kept for an address, if any. */
export function lookup(texts: LocaleTexts, at: TextAddress): string | undefined {
  if (at.scope === 'document') return texts.document?.[at.key];
  if (at.scope === 'schema') return texts.schemas?.[at.schema]?.[at.key];
  const op = texts.operations?.[at.operationId];
  if (!op) return undefined;
  if (at.group === 'summary' || at.group === 'description') return op[at.group];
  return op[at.group]?.[at.key];
}

/** A copy of the document with every text that has a translation replaced; structure and names stay. */
export function translateDocument<T>(doc: T, texts: LocaleTexts): T {
  const copy = structuredClone(doc);
  visitTexts(copy, (at, holder, prop) => {
    const t = lookup(texts, at);
    if (t !== undefined) holder[prop] = t;
  });
  return copy;
}

/** Merges per-area texts into one locale (later areas never overwrite an operation or schema of an earlier one). */
export function mergeTexts(...parts: LocaleTexts[]): LocaleTexts {
  const out: Required<LocaleTexts> = { document: {}, operations: {}, schemas: {} };
  for (const p of parts) {
    Object.assign(out.document, p.document);
    for (const [id, t] of Object.entries(p.operations ?? {})) {
      if (out.operations[id]) throw new Error(`operation ${id} translated twice`);
      out.operations[id] = t;
    }
    for (const [id, t] of Object.entries(p.schemas ?? {})) {
      if (out.schemas[id]) throw new Error(`schema ${id} translated twice`);
      out.schemas[id] = t;
    }
  }
  return out;
}
