import http from 'node:http';

/** A real HTTP server on 127.0.0.1 playing a merchant or agent: healthy, failing, hanging, lying. */
export interface LoopbackServer {
  url: string;
  port: number;
  /** Requests received, in order. */
  requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders }>;
  close(): Promise<void>;
}

export async function startLoopback(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<LoopbackServer> {
  const requests: LoopbackServer['requests'] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The whole body of a request, as text. */
export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => resolve(raw));
    req.on('error', reject);
  });
}

export const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

/** A loopback port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const s = await startLoopback(() => undefined);
  await s.close();
  return s.port;
}
