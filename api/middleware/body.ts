import type { Middleware } from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { AppError } from '../../src/errors';
import { findBadInput, MAX_BODY_DEPTH } from '../../src/input-guard';
import type { AppState } from '../context';

/**
 * zlib's failures (a body that does not match its Content-Encoding) carry a code: gzip and deflate
 * ones `Z_DATA_ERROR`, `Z_BUF_ERROR` (a truncated stream of any of them) …, Brotli's decoder ones
 * `ERR__ERROR_FORMAT_…` (Node names BROTLI_DECODER_ERROR_* that way).
 */
const isDecompressionError = (err: unknown) => {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_'));
};

/** The encodings the body parser decodes (inflation, under co-body); anything else it refuses with 415. */
const DECODED_ENCODINGS = 'identity, gzip, deflate or br';
const isUnsupportedEncoding = (err: unknown) =>
  (err as { status?: unknown }).status === 415 && /^Unsupported Content-Encoding/.test((err as Error).message ?? '');

/**
 * co-body (under @koa/bodyparser) refuses any body holding a member named `__proto__` with a parse
 * error, and @koa/bodyparser offers no way to change that. Such a body is valid JSON, and where the
 * schema admits unknown members a valid request: it is parsed here instead, the member kept as the
 * plain own member JSON.parse makes of it, for validation to judge like any other member (an object
 * that admits no unknown members refuses it by name) and dropPrototypeKeys to remove afterwards.
 * Only a body co-body kept as text (err.body) and whose top level is an object or an array, as
 * co-body's strict mode requires, is read again; anything else stays the parse error it was.
 */
function reparsePrototypeMember(err: unknown): unknown {
  const text = (err as { body?: unknown }).body;
  if (!(err instanceof SyntaxError) || typeof text !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @koa/bodyparser for JSON only, at most 1 MB: a body whose `Content-Encoding` does not match it
 * (gzip on plain text) is a 400, not a zlib failure; a body with `__proto__` members is read as
 * reparsePrototypeMember says. Shared by jsonBody and the A2A endpoint.
 */
export function jsonBodyParser(): Middleware<AppState> {
  return bodyParser({
    enableTypes: ['json'],
    jsonLimit: '1mb',
    encoding: 'utf-8',
    onError: (err, ctx) => {
      // Every encoding fails alike, before any route or credential sees the request: a 400 naming
      // the header, never the decoder's error as a 500.
      if (isDecompressionError(err)) {
        throw new AppError(
          400,
          'invalid_content_encoding',
          'The request body does not match its Content-Encoding; send it uncompressed or correctly encoded.',
        );
      }
      if (isUnsupportedEncoding(err)) {
        throw new AppError(
          400,
          'invalid_content_encoding',
          `Content-Encoding ${JSON.stringify(ctx.get('content-encoding'))} is not supported; send the body as ${DECODED_ENCODINGS}.`,
        );
      }
      const body = reparsePrototypeMember(err);
      if (body === undefined) throw err;
      (ctx.request as { body?: unknown }).body = body;
    },
  });
}

/**
 * The JSON body parser of every route, REST and MCP (jsonBodyParser). A body nested deeper than
 * MAX_BODY_DEPTH is a 400 before zod, canonical JSON or JSON.stringify (all recursive) see it. NUL
 * and lone surrogates are judged by the route registry, which names the field; members that name a
 * prototype are removed by the registry after validation, and by MCP before its tools see them.
 */
export function jsonBody(): Middleware<AppState> {
  const parse = jsonBodyParser();
  return (ctx, next) =>
    parse(ctx, async () => {
      const body = (ctx.request as { body?: unknown }).body;
      if (body !== undefined && findBadInput(body, '', { text: false })) {
        throw new AppError(400, 'invalid_json', `The request body nests deeper than ${MAX_BODY_DEPTH} levels.`);
      }
      await next();
    });
}
