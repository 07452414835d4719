import { spawnUntilReady, type SpawnedProcess } from './spawn';

export interface ApiProcess extends SpawnedProcess {
  url: string;
}

/**
 * `api/main.ts` (what `npm run api` runs) in a child process on `port`, so that a test can SIGKILL
 * the API mid-request and start another on the same address, as a crashed and restarted deployment.
 */
export function startApiProcess(port: number, env: Record<string, string>): ApiProcess {
  return { ...spawnUntilReady('api/main.ts', 'api listening', { PORT: String(port), ...env }), url: `http://127.0.0.1:${port}` };
}
