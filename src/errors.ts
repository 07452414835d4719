/**
 * A failure the caller caused or must know about, carrying its status and error code (docs/CONTRACT.md#errors).
 * Domain code throws these; the API renders them as `{error, message}`.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** 503 for a flow that runs on Temporal when this API process has no connection to it, or Temporal refused. */
export const temporalUnavailable = (flow: string) =>
  new AppError(
    503,
    'temporal_unavailable',
    `${flow} runs on Temporal, which is not reachable from this API process; nothing was started.`,
    undefined,
    { 'Retry-After': '5' },
  );
