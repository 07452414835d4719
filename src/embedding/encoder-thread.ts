import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { SentenceEncoder } from './encoder';
import type { EmbeddingModelFiles } from './model';

/**
 * The sentence encoder on a thread of its own. ONNX Runtime's Node binding runs a batch on the
 * JavaScript thread that calls it, so an encoder in the worker's own thread holds that thread for
 * every batch of a catalog walk: for seconds under load, while other activities' deadlines (a feed
 * fetch's, a merchant call's) and the worker's workflow tasks wait behind it. Here the encoder runs in
 * a `worker_threads` Worker that loads this same module; the calling thread only posts texts and
 * receives vectors (their buffers moved, not copied).
 *
 * From the TypeScript sources (tsx, vitest) the thread loads this file through tsx's loader; from the
 * production build it loads the compiled `.js` beside it.
 */

const ROLE = 'sentence-encoder-thread';

interface ThreadData {
  role: typeof ROLE;
  files: EmbeddingModelFiles;
  threads: number;
}
type Request = { id: number; texts: string[]; batchSize?: number } | { id: number; close: true };
type Reply =
  | { ready: { modelId: string; dims: number } }
  | { loadFailed: string }
  | { id: number; vectors: Float32Array[] }
  | { id: number; error: string }
  | { id: number; closed: true };

export class EncoderThread {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private ended: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    readonly modelId: string,
    readonly dims: number,
  ) {
    worker.on('message', (reply: Reply) => {
      if (!('id' in reply)) return;
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (!this.pending.size) worker.unref();
      if ('error' in reply) waiter.reject(new Error(reply.error));
      else waiter.resolve('vectors' in reply ? reply.vectors : undefined);
    });
    const end = (err: Error) => {
      this.ended ??= err;
      for (const waiter of this.pending.values()) waiter.reject(this.ended);
      this.pending.clear();
    };
    worker.on('error', end);
    worker.on('exit', (code) => end(new Error(`the encoder thread exited (code ${code})`)));
  }

  /** Starts the thread and loads the model there (`threads` for ONNX Runtime's pool); rejects with the load's error. */
  static async start(files: EmbeddingModelFiles, opts: { threads?: number } = {}): Promise<EncoderThread> {
    const data: ThreadData = { role: ROLE, files, threads: opts.threads ?? 1 };
    const self = new URL(import.meta.url);
    const fromSource = self.pathname.endsWith('.ts');
    const worker = new Worker(self, { workerData: data, execArgv: fromSource ? ['--import', 'tsx'] : [] });
    let onMessage = (_reply: Reply) => {};
    let onError = (_err: Error) => {};
    let onExit = (_code: number) => {};
    const ready = await new Promise<{ modelId: string; dims: number }>((resolve, reject) => {
      onMessage = (reply) => {
        if ('ready' in reply) resolve(reply.ready);
        else if ('loadFailed' in reply) reject(new Error(reply.loadFailed));
      };
      onError = reject;
      onExit = (code) => reject(new Error(`the encoder thread exited (code ${code}) before its model loaded`));
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    })
      .catch(async (err: unknown) => {
        await worker.terminate();
        throw err;
      })
      .finally(() => {
        // Only these: Worker keeps listeners of its own (its port's referencing follows 'message' listeners).
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      });
    // An idle thread does not keep the process alive (a worker that shuts down exits); one with work asked of it does.
    worker.unref();
    return new EncoderThread(worker, ready.modelId, ready.dims);
  }

  /** One unit vector per text, in order (SentenceEncoder.embed, on the thread). */
  embed(texts: string[], opts: { batchSize?: number } = {}): Promise<Float32Array[]> {
    return this.ask({ texts, batchSize: opts.batchSize }) as Promise<Float32Array[]>;
  }

  async embedOne(text: string): Promise<Float32Array> {
    const [v] = await this.embed([text]);
    return v!;
  }

  /** Lets the batches asked for finish, releases the model and ends the thread; later calls are refused. */
  async close(): Promise<void> {
    if (this.ended) return;
    await this.ask({ close: true }).catch(() => undefined);
    this.ended = new Error('the encoder thread is closed');
    await this.worker.terminate();
  }

  private ask(body: { texts: string[]; batchSize?: number | undefined } | { close: true }): Promise<unknown> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, ...body });
    });
  }
}

/** The thread's side: load the model, then answer each request in the order it came. */
async function serve(data: ThreadData): Promise<void> {
  const port = parentPort!;
  let encoder: SentenceEncoder;
  try {
    encoder = await SentenceEncoder.load(data.files, { threads: data.threads });
  } catch (err) {
    port.postMessage({ loadFailed: err instanceof Error ? err.message : String(err) } satisfies Reply);
    return;
  }
  port.postMessage({ ready: { modelId: encoder.modelId, dims: encoder.dims } } satisfies Reply);
  port.on('message', (req: Request) => {
    if ('close' in req) {
      void encoder.close().then(() => port.postMessage({ id: req.id, closed: true } satisfies Reply));
      return;
    }
    // The encoder queues its batches itself, so requests run one after another in arrival order.
    encoder.embed(req.texts, { batchSize: req.batchSize }).then(
      (vectors) =>
        port.postMessage(
          { id: req.id, vectors } satisfies Reply,
          vectors.map((v) => v.buffer as ArrayBuffer),
        ),
      (err: unknown) => port.postMessage({ id: req.id, error: err instanceof Error ? err.message : String(err) } satisfies Reply),
    );
  });
}

if (!isMainThread && (workerData as Partial<ThreadData> | null)?.role === ROLE) void serve(workerData as ThreadData);
