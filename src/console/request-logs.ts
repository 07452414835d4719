import type { Db } from '../db/connect';
import type { NewRequestLog, RequestLog } from '../db/schema';

export type RequestLogInput = Omit<NewRequestLog, 'id'> & { created_at: Date };

/**
 * Buffers API-key request logs and writes them in batches, off the request path. `close()` flushes
 * what is left, so a clean shutdown loses nothing. Also carries the keys' `last_used_at`.
 */
export class RequestLogWriter {
  private buffer: RequestLogInput[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly opts: { flushMs: number; maxBatch?: number; onError?: (err: unknown) => void },
  ) {}

  push(entry: RequestLogInput): void {
    this.buffer.push(entry);
    if (this.buffer.length >= (this.opts.maxBatch ?? 500)) void this.flush();
    else if (!this.timer && !this.closed) {
      this.timer = setTimeout(() => void this.flush(), this.opts.flushMs);
      this.timer.unref();
    }
  }

  get pending(): number {
    return this.buffer.length;
  }

  /** Writes everything buffered so far; concurrent calls are serialised. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.buffer;
    this.buffer = [];
    this.flushing = this.flushing.then(() => (batch.length ? this.write(batch) : undefined));
    return this.flushing;
  }

  private async write(batch: RequestLogInput[]): Promise<void> {
    const lastUsed = new Map<string, Date>();
    for (const e of batch) {
      const prev = lastUsed.get(e.key_id);
      if (!prev || prev < e.created_at) lastUsed.set(e.key_id, e.created_at);
    }
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx.insertInto('request_logs').values(batch).execute();
        for (const [keyId, at] of lastUsed) {
          await trx.updateTable('api_keys').set({ last_used_at: at }).where('key_id', '=', keyId).execute();
        }
      });
    } catch (err) {
      // Keep the entries for the next attempt rather than dropping them (bounded, oldest first out).
      this.buffer = [...batch, ...this.buffer].slice(-50_000);
      this.opts.onError?.(err);
      if (!this.closed && !this.timer) {
        this.timer = setTimeout(() => void this.flush(), Math.max(this.opts.flushMs, 1000));
        this.timer.unref();
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }
}

export async function listRequestLogs(db: Db, developerId: string, limit: number): Promise<RequestLog[]> {
  return db
    .selectFrom('request_logs')
    .selectAll()
    .where('developer_id', '=', developerId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
