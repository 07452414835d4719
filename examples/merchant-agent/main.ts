/**
 * CLI for the reference merchant agent:
 *   MERCHANT_ID=… MERCHANT_TOKEN=mrt_… WEBHOOK_SECRET=whsec_… API_KEY=… \
 *   PRODUCT_ID=42 PRICE=99.5 npx tsx examples/merchant-agent/main.ts
 * Without PRODUCT_ID and PRICE it still verifies and acknowledges surges but proposes nothing.
 */
import { startMerchantAgent, type AgentEvent } from './agent';

function required(name: string): string {
  const v = process.env[name]?.trim();
  if (!v) {
    console.error(`missing env ${name}`);
    process.exit(2);
  }
  return v;
}

function optionalNumber(name: string, integer = false): number | undefined {
  const v = process.env[name]?.trim();
  if (!v) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    console.error(`env ${name} must be a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(v)}`);
    process.exit(2);
  }
  return n;
}

function describe(e: AgentEvent): string {
  const head = `${e.at} ${e.webhookId ?? '-'} ${e.outcome} ${e.httpStatus}`;
  if (e.outcome !== 'accepted') return e.reason ? `${head} (${e.reason})` : head;
  const p = e.proposal;
  const tail =
    p?.outcome === 'submitted'
      ? `proposal ${p.proposalId} (${p.status})`
      : p?.outcome === 'failed'
        ? `proposal failed${p.status ? ` ${p.status}` : ''}: ${p.error}`
        : `no proposal (${p?.reason ?? 'pending'})`;
  return `${head} intent ${e.intentId} -> ${tail}`;
}

const agent = await startMerchantAgent({
  host: process.env.HOST?.trim() || '127.0.0.1',
  port: optionalNumber('PORT', true) ?? 8787,
  merchantId: required('MERCHANT_ID'),
  merchantToken: required('MERCHANT_TOKEN'),
  webhookSecret: required('WEBHOOK_SECRET'),
  apiKey: required('API_KEY'),
  productId: optionalNumber('PRODUCT_ID', true),
  price: optionalNumber('PRICE'),
  onEvent: (e) => console.log(describe(e)),
});
console.log(`merchant agent listening on ${agent.url}`);

const stop = () => {
  void agent.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
