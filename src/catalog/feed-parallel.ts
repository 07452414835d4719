import { createRequire } from 'node:module';
import os from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { delimitedRecords, FeedFileError, jsonlRecords, type FeedFormat, type OpenedFeed } from './feed-format';
import { canonicalRecords, type MappingOptions } from './feed-mappings';
import { CategoryNames, RowEncoder, type NewCategory } from './feed-rows';

/**
 * The parse of a large feed off the importer's thread (docs/CATALOG.md, "How an import is applied";
 * figures in docs/BENCHMARKS.md). Delimited text and JSON Lines are cut into chunks of about
 * CHUNK_BYTES at record boundaries (a newline outside quotes), each with the number of lines before
 * it; worker threads parse, map, validate and encode the chunks into COPY rows, and the chunks'
 * rows go to COPY in file order while the next ones are parsed. Line numbers in rejections are
 * the file's. A feed of one chunk, or any feed with no parse threads (DEFAULT_PARSE_THREADS), is
 * encoded on this thread with the same code. Memory: at most 2 chunks per thread in flight.
 */

/** Formats whose records can be cut apart without reading them: a Shopify product spans rows, XML nests. */
export const CHUNKED_FORMATS: ReadonlySet<FeedFormat> = new Set(['csv', 'tsv', 'merchant_center_tsv', 'jsonl', 'acp_jsonl']);

const CHUNK_BYTES = 256 << 10;
const PIECE_BYTES = 128 << 10;
/** A record longer than this (an unterminated quote, most likely) fails the file instead of filling memory. */
const MAX_RECORD_BYTES = 64 << 20;
/**
 * Parse threads by default: one core is left to this thread (chunking, COPY) and one to Postgres,
 * at most 3. On 2 cores none: one parse thread only moves the same work elsewhere and adds its
 * start-up and messages (measured, docs/BENCHMARKS.md), so the chunks are encoded here.
 */
export const DEFAULT_PARSE_THREADS = Math.max(0, Math.min(3, os.availableParallelism() - 2));
/** Per parse thread: its garbage is short-lived rows, so a small heap keeps the import's memory bounded. */
const THREAD_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 };
const NL = 10;
const QUOTE = 34;

export interface ChunkSpec {
  format: FeedFormat;
  delimiter: string | null;
  header: string[] | null;
  mapping: MappingOptions;
}

export interface ChunkResult {
  copy: string;
  rows: number;
  rejects: Array<{ line: number; reason: string }>;
  newCategories: NewCategory[];
}

/** One chunk (whole records) into COPY rows: what a worker thread runs, and this thread for a small feed. */
export async function encodeChunk(spec: ChunkSpec, encoder: RowEncoder, bytes: Uint8Array, lineOffset: number): Promise<ChunkResult> {
  const source = (async function* () {
    yield Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  })();
  const raw =
    spec.delimiter !== null
      ? delimitedRecords(source, spec.delimiter, { header: spec.header!, lineOffset })
      : jsonlRecords(source, lineOffset);
  let copy = '';
  let rows = 0;
  const rejects: ChunkResult['rejects'] = [];
  for await (const record of canonicalRecords(spec.format, raw, spec.mapping)) {
    rows++;
    const row = encoder.encode(record);
    if (typeof row === 'string') copy += row;
    else rejects.push(row);
  }
  return { copy, rows, rejects, newCategories: encoder.categories.takeNew() };
}

/**
 * Where complete records end in `buf` (from a record start): the index after the last newline
 * outside a quoted field, 0 when there is none yet. `state` carries the scan across appends.
 */
function scanBoundary(buf: Buffer, state: { pos: number; inQuotes: boolean; boundary: number }, delimiter: number | null): void {
  const n = buf.length;
  let pos = state.pos;
  while (pos < n) {
    if (state.inQuotes) {
      const q = buf.indexOf(QUOTE, pos);
      if (q === -1 || q + 1 >= n) {
        // The closing quote (or whether a quote is doubled) is decided by bytes not read yet.
        pos = q === -1 ? n : q;
        break;
      }
      if (buf[q + 1] === QUOTE) pos = q + 2;
      else {
        state.inQuotes = false;
        pos = q + 1;
      }
      continue;
    }
    const q = delimiter === null ? -1 : buf.indexOf(QUOTE, pos);
    const stop = q === -1 ? n : q;
    const nl = stop > pos ? buf.lastIndexOf(NL, stop - 1) : -1;
    if (nl >= pos) state.boundary = nl + 1;
    if (q === -1) {
      pos = n;
      break;
    }
    // A quote opens a quoted field only at the start of a field; elsewhere it is text.
    const before = q > 0 ? buf[q - 1] : NL;
    if (before === NL || before === delimiter || before === 13) state.inQuotes = true;
    pos = q + 1;
  }
  state.pos = pos;
}

/** The source in pieces of at most PIECE_BYTES (an HTTP body comes as one buffer), so chunks stay about CHUNK_BYTES. */
async function* pieces(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  for await (const b of source) for (let o = 0; o < b.length; o += PIECE_BYTES) yield b.subarray(o, o + PIECE_BYTES);
}

/** The data after a delimited file's header line (and any blank lines and BOM before it), with the lines it skipped. */
async function* chunksOf(feed: OpenedFeed): AsyncGenerator<{ bytes: Buffer; lineOffset: number; last: boolean }, void, undefined> {
  const delimiter = feed.delimiter === null ? null : feed.delimiter.charCodeAt(0);
  let pending: Buffer = Buffer.alloc(0);
  let lineOffset = 0;
  let headerDone = feed.delimiter === null;
  let started = false;
  const state = { pos: 0, inQuotes: false, boundary: 0 };
  const cut = (at: number) => {
    const bytes = pending.subarray(0, at);
    let lines = 0;
    for (let i = bytes.indexOf(NL); i !== -1; i = bytes.indexOf(NL, i + 1)) lines++;
    const chunk = { bytes, lineOffset };
    lineOffset += lines;
    pending = pending.subarray(at);
    state.pos -= at;
    state.boundary = 0;
    return chunk;
  };
  for await (const piece of pieces(feed.bytes)) {
    pending = pending.length ? Buffer.concat([pending, piece]) : piece;
    if (!started) {
      if (pending.length < 3) continue;
      if (pending[0] === 0xef && pending[1] === 0xbb && pending[2] === 0xbf) pending = pending.subarray(3);
      started = true;
    }
    if (!headerDone) {
      // Blank lines, then the header line (openFeed read its names).
      let i = 0;
      let lines = 0;
      while (i < pending.length && (pending[i] === 32 || pending[i] === 9 || pending[i] === 13 || pending[i] === NL)) {
        if (pending[i] === NL) lines++;
        i++;
      }
      const end = pending.indexOf(NL, i);
      if (end === -1) continue;
      lineOffset = lines + 1;
      pending = pending.subarray(end + 1);
      headerDone = true;
    }
    scanBoundary(pending, state, delimiter);
    if (state.boundary >= CHUNK_BYTES) yield { ...cut(state.boundary), last: false };
    else if (pending.length - state.boundary > MAX_RECORD_BYTES) {
      if (state.boundary) cut(state.boundary); // only to number the line the long record starts on
      throw new FeedFileError(
        `a record starting on line ${lineOffset + 1} is longer than ${MAX_RECORD_BYTES >> 20} MiB (an unterminated quoted field?)`,
      );
    }
  }
  if (!headerDone) {
    // A header line alone (no newline after it): no data.
    return;
  }
  if (pending.length) yield { ...cut(pending.length), last: true };
}

/** Worker threads running src/catalog/feed-parse-worker (its .ts source under tsx in development). */
class ChunkPool {
  private readonly workers: Array<{ worker: Worker; busy: number }> = [];
  private readonly waiting = new Map<number, { resolve: (r: ChunkResult) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private failure: Error | null = null;

  constructor(spec: ChunkSpec, known: Map<string, string>, threads: number) {
    const self = fileURLToPath(import.meta.url);
    const ext = extname(self);
    const file = new URL(`./feed-parse-worker${ext}`, import.meta.url);
    // Sources run through tsx in development and tests; the build compiles the worker next to this module.
    const execArgv = ext === '.ts' ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] : [];
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(file, { workerData: { spec, known: [...known] }, execArgv, resourceLimits: THREAD_LIMITS });
      const slot = { worker, busy: 0 };
      worker.on('message', (m: { id: number; result?: ChunkResult; error?: string; fileError?: boolean }) => {
        slot.busy--;
        const w = this.waiting.get(m.id);
        this.waiting.delete(m.id);
        if (!w) return;
        if (m.result) w.resolve(m.result);
        else w.reject(m.fileError ? new FeedFileError(m.error!) : new Error(m.error));
      });
      worker.on('error', (err) => this.fail(err));
      worker.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`a feed parse thread exited with code ${code}`));
      });
      this.workers.push(slot);
    }
  }

  private fail(err: Error) {
    this.failure ??= err;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }

  run(bytes: Buffer, lineOffset: number): Promise<ChunkResult> {
    if (this.failure) return Promise.reject(this.failure);
    const slot = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = this.nextId++;
    slot.busy++;
    const done = new Promise<ChunkResult>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    // A copy of its own (the read buffer may share memory with other chunks), moved to the thread, not copied again.
    const own = new Uint8Array(bytes);
    slot.worker.postMessage({ id, bytes: own, lineOffset }, [own.buffer]);
    return done;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }
}

/**
 * The COPY rows of a delimited or JSON Lines feed, in file order; `onChunk` gets each chunk's row
 * count, rejections (with the file's line numbers) and new categories, in file order too.
 */
export async function* chunkedCopy(
  feed: OpenedFeed,
  opts: { mapping: MappingOptions; knownCategories: Map<string, string>; threads: number; onChunk: (c: ChunkResult) => void },
): AsyncGenerator<string> {
  const spec: ChunkSpec = { format: feed.format, delimiter: feed.delimiter, header: feed.header, mapping: opts.mapping };
  const chunks = chunksOf(feed);
  const first = await chunks.next();
  if (first.done) return;
  if (first.value.last || opts.threads < 1) {
    // One chunk (no thread is worth starting), or no parse threads: the chunks are encoded here.
    const encoder = new RowEncoder(new CategoryNames(opts.knownCategories));
    for (let c: { bytes: Buffer; lineOffset: number } | undefined = first.value; c;) {
      const r = await encodeChunk(spec, encoder, c.bytes, c.lineOffset);
      opts.onChunk(r);
      if (r.copy) yield r.copy;
      const next = await chunks.next();
      c = next.done ? undefined : next.value;
    }
    return;
  }
  const threads = opts.threads;
  const pool = new ChunkPool(spec, opts.knownCategories, threads);
  const inFlight: Array<Promise<ChunkResult>> = [];
  const send = (c: { bytes: Buffer; lineOffset: number }) => {
    const p = pool.run(c.bytes, c.lineOffset);
    p.catch(() => undefined); // awaited in order below; a failure before its turn must not go unhandled
    inFlight.push(p);
  };
  try {
    send(first.value);
    for await (const c of chunks) {
      send(c);
      while (inFlight.length >= 2 * threads) {
        const r = await inFlight.shift()!;
        opts.onChunk(r);
        if (r.copy) yield r.copy;
      }
    }
    while (inFlight.length) {
      const r = await inFlight.shift()!;
      opts.onChunk(r);
      if (r.copy) yield r.copy;
    }
  } finally {
    await pool.close();
  }
}
