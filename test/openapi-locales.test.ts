import { describe, expect, it } from 'vitest';
import { buildRoutes } from '../api/app';
import { buildOpenApiDocument } from '../api/openapi';
import { translations, LOCALES } from '../api/openapi-locales';
import { lookup, mergeTexts, translateDocument, visitTexts, type LocaleTexts, type TextAddress } from '../api/openapi-text';

/**
 * Translations are keyed by operation id and field (api/openapi-text.ts), not by English sentences.
 * These checks keep them attached: a key that names nothing is a translation lost to a rename, and
 * an operation without its translated summary and description ships English-only.
 */

const en = buildOpenApiDocument(buildRoutes().routes, { locale: 'en', serverUrl: 'http://127.0.0.1' }) as any;
const key = (a: TextAddress) => JSON.stringify(a);

function addressesOf(texts: LocaleTexts): TextAddress[] {
  const out: TextAddress[] = [];
  for (const k of Object.keys(texts.document ?? {})) out.push({ scope: 'document', key: k });
  for (const [schema, fields] of Object.entries(texts.schemas ?? {})) {
    for (const k of Object.keys(fields)) out.push({ scope: 'schema', schema, key: k });
  }
  for (const [operationId, t] of Object.entries(texts.operations ?? {})) {
    if (t.summary !== undefined) out.push({ scope: 'operation', operationId, group: 'summary', key: '' });
    if (t.description !== undefined) out.push({ scope: 'operation', operationId, group: 'description', key: '' });
    for (const group of ['responses', 'params', 'fields'] as const) {
      for (const k of Object.keys(t[group] ?? {})) out.push({ scope: 'operation', operationId, group, key: k });
    }
  }
  return out;
}

describe('OpenAPI translations keyed by operation id and field', () => {
  const existing = new Set<string>();
  visitTexts(en, (a) => existing.add(key(a)));

  it('every operation has a unique operation id', () => {
    const ids = Object.values<any>(en.paths).flatMap((ops) => Object.values<any>(ops).map((op) => op.operationId));
    expect(ids.length).toBeGreaterThan(50);
    expect(new Set(ids).size).toBe(ids.length);
  });

  for (const locale of LOCALES.filter((l) => l !== 'en')) {
    const texts = translations[locale];

    it(`${locale}: every translation names an operation, response, parameter or field that exists`, () => {
      const stale = addressesOf(texts).filter((a) => !existing.has(key(a)));
      expect(stale, 'translations whose operation or field is gone: rename their keys or delete them').toEqual([]);
    });

    it(`${locale}: every operation has its summary and description translated`, () => {
      const missing: string[] = [];
      visitTexts(en, (a) => {
        if (a.scope === 'operation' && (a.group === 'summary' || a.group === 'description') && lookup(texts, a) === undefined) {
          missing.push(`${a.operationId} ${a.group}`);
        }
      });
      expect(missing).toEqual([]);
    });

    it(`${locale}: an English copy edit keeps the translation; an untranslated text stays English`, () => {
      const edited = structuredClone(en);
      const op = edited.paths['/v1/developers/register'].post;
      op.summary = 'Sign up for a developer account';
      const out = translateDocument(edited, texts) as any;
      expect(out.paths['/v1/developers/register'].post.summary).toBe(texts.operations!.postV1DevelopersRegister!.summary);
      // The fallback: a text nobody translated is served as written.
      op.description = 'A sentence no translation has.';
      const without = structuredClone(texts);
      delete without.operations!.postV1DevelopersRegister!.description;
      const served = translateDocument(edited, without) as any;
      expect(served.paths['/v1/developers/register'].post.description).toBe('A sentence no translation has.');
    });
  }

  it('an operation or schema translated in two files is refused', () => {
    const twice = () => mergeTexts({ operations: { getHealthz: { summary: 'a' } } }, { operations: { getHealthz: { summary: 'b' } } });
    expect(twice).toThrow(/twice/);
  });
});
