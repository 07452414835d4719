import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import { SaxesParser, type SaxesTagNS } from 'saxes';

/**
 * Reading merchant feeds as a stream of raw records, each with the line it starts on. The format
 * is detected from the content, never from the file name (docs/CATALOG.md has the table):
 * delimited text (CSV or tab-separated; a Shopify product export is recognised by its header),
 * XML (RSS 2.0 or Atom, Google Merchant Center `g:` attributes) and JSON Lines (the gateway's own
 * column set, or an Agentic Commerce Protocol product feed). Parsing is streamed by csv-parse and
 * saxes, so memory does not grow with the file. Problems confined to one record come back as that
 * record's error; problems that make the rest of the file unreadable throw FeedFileError.
 */

export class FeedFileError extends Error {}

export type RawRecord = { line: number; values: Record<string, unknown> } | { line: number; error: string };

export type FeedFormat =
  'csv' | 'tsv' | 'shopify_csv' | 'merchant_center_tsv' | 'merchant_center_rss' | 'merchant_center_atom' | 'jsonl' | 'acp_jsonl';

export interface OpenedFeed {
  format: FeedFormat;
  /** Lower-cased header of a delimited feed (null for XML and JSON Lines). */
  header: string[] | null;
  records: AsyncGenerator<RawRecord>;
}

/** Bytes looked at to recognise a format. */
const SNIFF_BYTES = 64 * 1024;
const GOOGLE_NS = 'http://base.google.com/ns/1.0';

/** A byte source with a count of the bytes consumed so far (for progress and ETA). */
export class CountingSource implements AsyncIterable<Buffer> {
  bytes = 0;
  constructor(private readonly source: AsyncIterable<Buffer | string>) {}
  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for await (const chunk of this.source) {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      this.bytes += b.length;
      yield b;
    }
  }
}

export function fileSource(filePath: string): AsyncIterable<Buffer> {
  return (async function* () {
    const stream = createReadStream(filePath, { highWaterMark: 256 * 1024 });
    try {
      for await (const chunk of stream) yield chunk as Buffer;
    } catch (err) {
      throw new FeedFileError(`cannot read ${filePath}: ${(err as Error).message}`);
    } finally {
      stream.destroy();
    }
  })();
}

/** Peeks at the start of the source, decides the format and returns its records. */
export async function openFeed(source: AsyncIterable<Buffer>): Promise<OpenedFeed> {
  const it = source[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < SNIFF_BYTES) {
    const next = await it.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value);
    size += next.value.length;
  }
  const replay: AsyncIterable<Buffer> = (async function* () {
    yield* head;
    if (!done) {
      for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
    }
  })();
  const text = Buffer.concat(head)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  const start = text.trimStart();
  if (!start) throw new FeedFileError('the file is empty');

  if (start.startsWith('<')) {
    const format = /<rss[\s>]/.test(start) ? 'merchant_center_rss' : /<feed[\s>]/.test(start) ? 'merchant_center_atom' : null;
    if (!format) throw new FeedFileError('an XML feed must be RSS 2.0 (<rss>) or Atom (<feed>)');
    return { format, header: null, records: xmlRecords(replay) };
  }
  if (start.startsWith('{')) {
    const first = start.split('\n', 1)[0]!;
    let acp = false;
    try {
      const o = JSON.parse(first) as Record<string, unknown>;
      acp = Array.isArray(o.variants) || 'enable_search' in o || 'enable_checkout' in o;
    } catch {
      // A first line that is not JSON is that record's error; the format stays JSON Lines.
    }
    return { format: acp ? 'acp_jsonl' : 'jsonl', header: null, records: jsonlRecords(replay) };
  }
  const firstLine = start.split(/\r?\n/, 1)[0]!;
  const delimiter = firstLine.includes('\t') ? '\t' : ',';
  const names = firstLine.split(delimiter).map((h) => h.replace(/^"|"$/g, '').trim().toLowerCase());
  const shopify = names.includes('handle') && (names.includes('variant price') || names.includes('body (html)'));
  const format: FeedFormat = shopify ? 'shopify_csv' : delimiter === '\t' ? (names.includes('id') ? 'merchant_center_tsv' : 'tsv') : 'csv';
  // The header is line 1, unquoted, whole within the bytes looked at.
  const plainHeader = start === text && (done || firstLine.length < text.length) && !/["\r]/.test(firstLine);
  return { format, header: names, records: delimitedRecords(replay, delimiter, plainHeader) };
}

/**
 * Delimited text (RFC 4180 quoting): the header row names the fields of every later row. A
 * tab-separated file whose header is its unquoted first line is split line by line on tabs, which
 * is what csv-parse makes of such lines at a fraction of its cost (a 1,000,000-row Merchant Center
 * feed spent about half its parse in csv-parse); from the first line that csv-parse could read
 * differently (a field opening with a quote, which may span lines, or a carriage return) to the end
 * of the file, csv-parse reads the rest.
 */
function delimitedRecords(source: AsyncIterable<Buffer>, delimiter: string, plainHeader: boolean): AsyncGenerator<RawRecord> {
  return delimiter === '\t' && plainHeader ? tabRecords(source) : csvRecords(source, delimiter, 0);
}

async function* tabRecords(source: AsyncIterable<Buffer>): AsyncGenerator<RawRecord> {
  const it = source[Symbol.asyncIterator]();
  const decoder = new TextDecoder('utf-8');
  let header: string[] | null = null;
  let headerLine = '';
  let no = 0;
  let rest = '';
  let done = false;
  while (!done) {
    const next = await it.next();
    if (next.done) {
      done = true;
      rest += decoder.decode();
    } else rest += decoder.decode(next.value, { stream: true });
    let start = 0;
    for (;;) {
      const end = rest.indexOf('\n', start);
      if (end < 0 && !(done && start < rest.length)) break;
      const text = rest.slice(start, end < 0 ? rest.length : end);
      if (text.includes('\r') || text.startsWith('"') || text.includes('\t"')) {
        // csv-parse from here on, at a record boundary (every line before was a record of its own),
        // after the header line again: what it makes of a line depends on what it saw on line 1.
        const tail = async function* (): AsyncGenerator<Buffer> {
          if (header) yield Buffer.from(`${headerLine}\n`);
          yield Buffer.from(rest.slice(start));
          if (done) return;
          for (let n = await it.next(); !n.done; n = await it.next()) yield Buffer.from(decoder.decode(n.value, { stream: true }));
          yield Buffer.from(decoder.decode());
        };
        yield* csvRecords(tail(), '\t', header ? no - 1 : 0);
        return;
      }
      no++;
      start = end < 0 ? rest.length : end + 1;
      if (!header) {
        headerLine = text.replace(/^\uFEFF/, '');
        header = headerLine.split('\t').map((h) => h.trim().toLowerCase());
        continue;
      }
      const record = delimitedRecord(header, text.split('\t'), no);
      if (record) yield record;
    }
    rest = rest.slice(start);
  }
  if (!header) throw new FeedFileError('the file has no header row');
}

/** csv-parse's records; `lineOffset` lines of the file come before the source's first line but its header. */
async function* csvRecords(source: AsyncIterable<Buffer>, delimiter: string, lineOffset: number): AsyncGenerator<RawRecord> {
  const parser = Readable.from(source).pipe(
    parseCsv({
      delimiter,
      bom: true,
      info: true,
      raw: true,
      relax_column_count: true,
      relax_quotes: delimiter === '\t',
      skip_empty_lines: true,
      quote: '"',
    }),
  );
  let header: string[] | null = null;
  let lastEnd = 0;
  try {
    for await (const { record, info, raw } of parser as AsyncIterable<{ record: string[]; info: { lines: number }; raw: string }>) {
      // info.lines is the line the record ends on; a quoted field may span several lines.
      const body = raw.replace(/^[\r\n]+/, '').replace(/\r?\n$/, '');
      const line = info.lines - (body.match(/\n/g)?.length ?? 0) + (header ? lineOffset : 0);
      lastEnd = info.lines + (header ? lineOffset : 0);
      if (!header) {
        if (record.length === 1 && !record[0]!.trim()) continue;
        header = record.map((h) => h.trim().toLowerCase());
        continue;
      }
      const r = delimitedRecord(header, record, line);
      if (r) yield r;
    }
  } catch (err) {
    if (err instanceof FeedFileError) throw err;
    const e = err as { code?: string; message: string };
    if (e.code === 'CSV_QUOTE_NOT_CLOSED') throw new FeedFileError(`unterminated quoted field starting on line ${lastEnd + 1}`);
    if (e.code?.startsWith('CSV_'))
      throw new FeedFileError(`unreadable ${delimiter === '\t' ? 'TSV' : 'CSV'} after line ${lastEnd}: ${e.message}`);
    throw err;
  } finally {
    parser.destroy();
  }
  if (!header) throw new FeedFileError('the file has no header row');
}

/** One row of a delimited feed under its header; null for a blank line (skipped, not counted). */
function delimitedRecord(header: string[], record: string[], line: number): RawRecord | null {
  if (record.length === 1 && !record[0]!.trim()) return null;
  if (record.length !== header.length) return { line, error: `expected ${header.length} fields, found ${record.length}` };
  const values: Record<string, unknown> = {};
  header.forEach((h, i) => (values[h] = record[i]));
  return { line, values };
}

async function* splitLines(source: AsyncIterable<Buffer>): AsyncGenerator<{ no: number; text: string }> {
  const decoder = new TextDecoder('utf-8');
  let rest = '';
  let no = 0;
  for await (const chunk of source) {
    rest += decoder.decode(chunk, { stream: true });
    let i: number;
    while ((i = rest.indexOf('\n')) >= 0) {
      const text = rest.slice(0, i).replace(/\r$/, '');
      rest = rest.slice(i + 1);
      no++;
      yield { no, text: no === 1 ? text.replace(/^\uFEFF/, '') : text };
    }
  }
  rest += decoder.decode();
  if (rest) yield { no: no + 1, text: no === 0 ? rest.replace(/^\uFEFF/, '') : rest };
}

async function* jsonlRecords(source: AsyncIterable<Buffer>): AsyncGenerator<RawRecord> {
  for await (const { no, text } of splitLines(source)) {
    if (!text.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      yield { line: no, error: 'not valid JSON' };
      continue;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) yield { line: no, error: 'not a JSON object' };
    else yield { line: no, values: lowerKeys(value as Record<string, unknown>) };
  }
}

/** Elements repeated within one item whose every occurrence is kept (the rest keep the first). */
const REPEATED = new Set(['additional_image_link', 'shipping', 'product_detail', 'product_highlight']);

/**
 * RSS 2.0 `<item>` and Atom `<entry>` elements with Google Merchant Center attributes. `g:` names
 * lose their prefix; Atom's `<link href>`, `<summary>`/`<content>` and `<id>` stand for link,
 * description and id when no `g:` element gives them. Nested elements (`g:shipping`) become objects.
 */
async function* xmlRecords(source: AsyncIterable<Buffer>): AsyncGenerator<RawRecord> {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const out: RawRecord[] = [];
  let item: { line: number; values: Record<string, unknown>; atom: Record<string, string> } | null = null;
  // Open elements inside the item: name, collected text, child object (for nested g: elements).
  const stack: Array<{ name: string; text: string; children: Record<string, string> | null; google: boolean }> = [];
  let failure: Error | null = null;

  parser.on('opentag', (tag: SaxesTagNS) => {
    const local = tag.local;
    if (!item) {
      if (local === 'item' || local === 'entry') item = { line: parser.line, values: {}, atom: {} };
      return;
    }
    if (stack.length === 0 && local === 'link' && tag.attributes.href) {
      const rel = tag.attributes.rel?.value ?? 'alternate';
      if (rel === 'alternate') item.atom.link ??= tag.attributes.href.value;
    }
    if (stack.length === 1) stack[0]!.children ??= {};
    stack.push({ name: local.toLowerCase(), text: '', children: null, google: tag.uri === GOOGLE_NS });
  });
  parser.on('text', (t) => {
    if (stack.length) stack[stack.length - 1]!.text += t;
  });
  parser.on('cdata', (t) => {
    if (stack.length) stack[stack.length - 1]!.text += t;
  });
  parser.on('closetag', (tag: SaxesTagNS) => {
    if (!item) return;
    if (stack.length === 0) {
      if (tag.local === 'item' || tag.local === 'entry') {
        const values = item.values;
        for (const [k, v] of Object.entries(item.atom)) if (values[k] === undefined) values[k] = v;
        out.push({ line: item.line, values });
        item = null;
      }
      return;
    }
    const el = stack.pop()!;
    if (stack.length >= 1) {
      // A child of a nested element (g:shipping > g:price): kept on the parent object.
      const parent = stack[stack.length - 1]!;
      (parent.children ??= {})[el.name] = el.text.trim();
      return;
    }
    const value: unknown = el.children ? el.children : el.text.trim();
    if (!el.google) {
      // Plain RSS/Atom elements: title, link, description, summary, content, id.
      const name = el.name === 'summary' || el.name === 'content' ? 'description' : el.name;
      if (typeof value === 'string' && value) item.atom[name] ??= value;
      return;
    }
    if (REPEATED.has(el.name)) ((item.values[el.name] ??= []) as unknown[]).push(value);
    else item.values[el.name] ??= value;
  });
  parser.on('error', (err) => {
    failure ??= new FeedFileError(`malformed XML: ${err.message}`);
  });

  const decoder = new TextDecoder('utf-8');
  for await (const chunk of source) {
    parser.write(decoder.decode(chunk, { stream: true }));
    if (failure) throw failure;
    yield* out.splice(0);
  }
  parser.write(decoder.decode());
  parser.close();
  if (failure) throw failure;
  yield* out.splice(0);
}

function lowerKeys(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k.trim().toLowerCase()] = v;
  return out;
}

/**
 * The records of a CSV/TSV or JSON Lines file (affiliate order reports, community evidence), with
 * a header check: `required` maps a field to its accepted header names.
 */
export async function* readFeed(filePath: string, required: Record<string, readonly string[]> = {}): AsyncGenerator<RawRecord> {
  const feed = await openFeed(fileSource(filePath));
  if (feed.header) {
    const missing = Object.entries(required)
      .filter(([, aliases]) => !aliases.some((a) => feed.header!.includes(a)))
      .map(([name]) => name);
    if (missing.length) throw new FeedFileError(`the header row (line 1) lacks required column(s): ${missing.join(', ')}`);
  }
  yield* feed.records;
}
