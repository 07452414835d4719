/**
 * The sender's cost of webhook sends alone (no Temporal, no database): N signed POSTs through
 * `callMerchant` (headers-only, as src/dispatch/attempt.ts sends them), 128 at once (one fan-out
 * batch's FIRST_ATTEMPT_CONCURRENCY), to a loopback sink in a child process. Prints per round the
 * wall time and this process's CPU time, and the TCP connections the sink accepted in all: the
 * deterministic figure (one per send without keep-alive, at most 128 with it).
 *
 *   npx tsx bench/outbound-sends.ts [--sends 1000 --rounds 3]
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { FIRST_ATTEMPT_CONCURRENCY } from '../src/dispatch/surge-page';
import { callMerchant } from '../src/outbound/merchant';

if (process.argv[2] === 'sink') {
  let connections = 0;
  const sink = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  sink.on('connection', () => connections++);
  sink.listen(0, '127.0.0.1', () => process.send!({ port: (sink.address() as { port: number }).port }));
  process.on('message', () => process.send!({ connections }));
} else {
  const { values } = parseArgs({ options: { sends: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '3' } } });
  const child = fork(new URL(import.meta.url).pathname, ['sink'], { execArgv: process.execArgv });
  const ask = () => new Promise<{ port?: number; connections?: number }>((r) => child.once('message', r as never));
  const { port } = await ask();
  const body = JSON.stringify({ type: 'intent.surge', data: { intent_id: 'int_bench', summary: 'x'.repeat(700) } });
  const secret = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
  const round = async (n: number) => {
    let next = 0;
    let accepted = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const lane = async () => {
      while (next < n) {
        const i = next++;
        const answer = await callMerchant(
          { allowPrivateEndpoints: true },
          {
            endpoint: `http://127.0.0.1:${port}/hook`,
            messageId: `msg_${i}`,
            body,
            secret,
            timeoutMs: 5000,
            maxBytes: 0,
            headersOnly: true,
          },
        );
        if (answer.outcome === 'accepted') accepted++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(FIRST_ATTEMPT_CONCURRENCY, n) }, lane));
    const cpu = process.cpuUsage(cpu0);
    return { wallMs: Math.round(performance.now() - t0), cpuMs: Math.round((cpu.user + cpu.system) / 1000), accepted };
  };
  const sends = Number(values.sends);
  await round(200); // warm-up
  for (let k = 0; k < Number(values.rounds); k++) console.log(JSON.stringify({ sends, ...(await round(sends)) }));
  child.send('count');
  console.log(`sink connections over all rounds (warm-up of 200 included): ${(await ask()).connections}`);
  child.kill();
}
