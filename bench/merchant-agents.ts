import http from 'node:http';
import { readBody } from '../test/helpers/loopback';

/**
 * Merchant agents on loopback for the durable-flow benchmarks. Each answers a runtime query with one
 * proposal at catalog price and any other POST (a checkout handoff, an intent webhook) with 200.
 */
export interface BenchMerchants {
  counts: { queries: number; handoffs: number; other: number };
  /** Starts one more agent; returns its endpoint. */
  add(): Promise<string>;
  close(): void;
}

export function benchMerchants(
  offer: () => { product_id: number; price_cents: number; title: string },
  shippingCost: number,
): BenchMerchants {
  const counts = { queries: 0, handoffs: 0, other: 0 };
  const servers: http.Server[] = [];
  return {
    counts,
    async add() {
      const server = http.createServer(async (req, res) => {
        const raw = await readBody(req);
        let body: { type?: unknown } | null = null;
        try {
          body = JSON.parse(raw || 'null');
        } catch {
          // Not JSON: answered like any other call below.
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        if (body?.type === 'runtime.query') {
          counts.queries++;
          const p = offer();
          const proposal = {
            product_id: p.product_id,
            offer_title: p.title,
            price: p.price_cents / 100,
            currency: 'USD',
            shipping_commitment: { max_days: 3, cost: shippingCost },
          };
          res.end(JSON.stringify({ proposals: [proposal] }));
        } else {
          if (body?.type === 'checkout.handoff') counts.handoffs++;
          else counts.other++;
          res.end(JSON.stringify({ order_id: `ord-${counts.handoffs}`, accepted: true }));
        }
      });
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as { port: number }).port}/agent`;
    },
    close() {
      for (const s of servers) {
        s.close();
        s.closeAllConnections();
      }
    },
  };
}
