import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * Reading merchant feeds (CSV with a header row, or JSON Lines) as a stream of raw records, each
 * with the line it starts on. Problems confined to one record come back as that record's error;
 * problems that make the rest of the file unreadable throw FeedFileError.
 */

export class FeedFileError extends Error {}

export type RawRecord = { line: number; values: Record<string, unknown> } | { line: number; error: string };

export type FeedFormat = 'csv' | 'jsonl';

export function formatOf(filePath: string, firstLine: string): FeedFormat {
  const lower = filePath.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  return firstLine.trimStart().startsWith('{') ? 'jsonl' : 'csv';
}

async function* numberedLines(filePath: string): AsyncGenerator<{ no: number; text: string }> {
  const stream = createReadStream(filePath, { encoding: 'utf8' });
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  let no = 0;
  try {
    for await (const text of rl) {
      no++;
      yield { no, text: no === 1 ? text.replace(/^\uFEFF/, '') : text };
    }
  } catch (err) {
    throw new FeedFileError(`cannot read ${filePath}: ${(err as Error).message}`);
  } finally {
    rl.close();
    stream.destroy();
  }
}

/** `required`: column name → accepted header aliases; a CSV header lacking one fails the whole file. */
export async function* readFeed(filePath: string, required: Record<string, readonly string[]> = {}): AsyncGenerator<RawRecord> {
  const lines = numberedLines(filePath);
  const first = await lines.next();
  if (first.done) throw new FeedFileError('the file is empty');
  const format = formatOf(filePath, first.value.text);
  async function* all() {
    yield first.value as { no: number; text: string };
    yield* lines;
  }
  if (format === 'jsonl') yield* jsonlRecords(all());
  else yield* csvRecords(all(), required);
}

async function* jsonlRecords(lines: AsyncIterable<{ no: number; text: string }>): AsyncGenerator<RawRecord> {
  for await (const { no, text } of lines) {
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

/** RFC 4180 CSV: quoted fields may hold commas, doubled quotes and line breaks. */
async function* csvRecords(lines: AsyncIterable<{ no: number; text: string }>, required: Record<string, readonly string[]>): AsyncGenerator<RawRecord> {
  let header: string[] | null = null;
  let fields: string[] = [];
  let field = '';
  let inQuotes = false;
  let start = 0;
  for await (const { no, text } of lines) {
    if (inQuotes) field += '\n';
    else {
      start = no;
      fields = [];
      field = '';
    }
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (inQuotes) {
        if (ch !== '"') field += ch;
        else if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else inQuotes = false;
      } else if (ch === '"') inQuotes = true;
      else if (ch === ',') {
        fields.push(field);
        field = '';
      } else field += ch;
    }
    if (inQuotes) continue;
    fields.push(field);
    if (fields.length === 1 && !fields[0]!.trim()) continue;
    if (!header) {
      header = fields.map((h) => h.trim().toLowerCase());
      const missing = Object.entries(required)
        .filter(([, aliases]) => !aliases.some((a) => header!.includes(a)))
        .map(([name]) => name);
      if (missing.length) throw new FeedFileError(`the header row (line ${start}) lacks required column(s): ${missing.join(', ')}`);
      continue;
    }
    if (fields.length !== header.length) {
      yield { line: start, error: `expected ${header.length} fields, found ${fields.length}` };
      continue;
    }
    const values: Record<string, unknown> = {};
    header.forEach((h, i) => (values[h] = fields[i]));
    yield { line: start, values };
  }
  if (inQuotes) throw new FeedFileError(`unterminated quoted field starting on line ${start}`);
  if (!header) throw new FeedFileError('the file has no header row');
}

function lowerKeys(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k.trim().toLowerCase()] = v;
  return out;
}
