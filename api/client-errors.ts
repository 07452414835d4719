import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * What Node's HTTP server answers itself, before any request reaches Koa: a request whose request
 * line and headers exceed the parser's limit (`maxHeaderSize`, 16 KB: a very long query or a large
 * header) is 431, a request the parser cannot read at all is 400, one that took too long to arrive
 * is 408. Node writes those with an empty body; here they carry the same `{error, message}` envelope
 * as every other error, and the document lists the 431 on every operation (api/openapi.ts).
 */

/** Node's default `maxHeaderSize`: the request line and every header together. */
export const MAX_HEADER_BYTES = 16 * 1024;

interface ClientErrorAnswer {
  status: number;
  reason: string;
  error: string;
  message: string;
}

function answerFor(code: string | undefined): ClientErrorAnswer {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        error: 'request_header_fields_too_large',
        message: `The request line and headers exceed ${MAX_HEADER_BYTES / 1024} KB: shorten the query or the headers (send long input in a JSON body).`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return {
        status: 413,
        reason: 'Payload Too Large',
        error: 'payload_too_large',
        message: 'The chunk extensions of the body are too large.',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', error: 'request_timeout', message: 'The request did not arrive in time.' };
    default:
      return { status: 400, reason: 'Bad Request', error: 'bad_request', message: 'The request is not valid HTTP/1.1.' };
  }
}

/** Answers the parser's refusals on `server` in the JSON envelope instead of Node's empty bodies. */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // As Node's own handler: answer only when nothing of a response is on the wire yet (a pipelined
    // request after one whose answer is being written gets the connection closed instead).
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
      const a = answerFor(err.code);
      const body = JSON.stringify({ error: a.error, message: a.message });
      socket.end(
        `HTTP/1.1 ${a.status} ${a.reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      return;
    }
    socket.destroy();
  });
}
