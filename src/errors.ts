/**
 * A failure the caller caused or must know about, carrying the spec's status and error code.
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
