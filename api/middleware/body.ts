import type { Middleware } from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { AppError } from '../../src/errors';
import { findBadInput, MAX_BODY_DEPTH } from '../../src/input-guard';
import type { AppState } from '../context';

/** zlib's failures (a body that does not match its Content-Encoding) carry codes like Z_DATA_ERROR. */
const isDecompressionError = (err: unknown) => {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('Z_');
};

/**
 * The JSON body parser of every route, REST and MCP: at most 1 MB, JSON only. A body whose
 * `Content-Encoding` does not match it (gzip on plain text) is a 400, not a zlib failure; a body
 * nested deeper than MAX_BODY_DEPTH is a 400 before zod, canonical JSON or JSON.stringify (all
 * recursive) see it. NUL and lone surrogates are judged by the route registry, which names the field.
 */
export function jsonBody(): Middleware<AppState> {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: '1mb',
    encoding: 'utf-8',
    onError: (err) => {
      if (isDecompressionError(err)) {
        throw new AppError(
          400,
          'invalid_content_encoding',
          'The request body does not match its Content-Encoding; send it uncompressed or correctly encoded.',
        );
      }
      throw err;
    },
  });
  return (ctx, next) =>
    parse(ctx, async () => {
      const body = (ctx.request as { body?: unknown }).body;
      if (body !== undefined && findBadInput(body, '', { text: false })) {
        throw new AppError(400, 'invalid_json', `The request body nests deeper than ${MAX_BODY_DEPTH} levels.`);
      }
      await next();
    });
}
