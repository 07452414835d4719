import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { call } from './helpers/http';
import { onboard, type Onboarded } from './helpers/console';
import { startTestApi, type TestApi } from './helpers/stack';
import { startTestWorker } from './helpers/worker';

/**
 * The catalog path of the journey over MCP (TypeScript SDK): recommend → accept the top pick → plan →
 * confirm. A catalog product's seller has no agent endpoint, so the checkout is a merchant redirect:
 * the gateway authorizes no payment, and confirm answers status handed_off with continue_url, the
 * attributable /r/{rec_id} link of the recommended card (docs/CHECKOUT.md, checkout modes).
 */
const ASK = 'find me trail running shoes under $120 and buy the best one';
const signingKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

let api: TestApi;
let dev: Onboarded;
let worker: { stop(): Promise<void> };
let client: Client;

async function tool(name: string, args: Record<string, unknown>): Promise<any> {
  const res = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
  const text = res.content.find((c) => c.type === 'text');
  expect(res.isError, `${name}: ${text?.type === 'text' ? text.text : ''}`).not.toBe(true);
  return res.structuredContent;
}

beforeAll(async () => {
  api = await startTestApi({ env: { MATCH_TOKEN_SIGNING_KEY: signingKey } });
  dev = await onboard(api.url);
  worker = await startTestWorker(api.config, api.db);
  client = new Client({ name: 'catalog-journey-test', version: '0.0.1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', api.url), { requestInit: { headers: { authorization: `Bearer ${dev.apiKey}` } } }),
  );
});

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await worker?.stop();
  await api?.close();
});

describe('MCP journey, catalog path: recommend → accept the top pick → plan → confirm → continue_url', () => {
  it("buys the best recommended trail runner: confirm answers handed_off with the card's attributable link, no payment authorized", async () => {
    const rec = await tool('recommend', { intent: ASK, limit: 3 });
    expect(rec.items.length).toBeGreaterThan(0);
    const top = rec.items[0];
    expect(top.price).toBeLessThanOrEqual(120);
    expect(rec.shopper_guide).toContain(`Top pick: ${top.title}`);

    // "The best one" is the top pick: accept's default takes it.
    const accepted = await tool('accept_match', { match_session_id: rec.match_session_id });
    expect(accepted.proposal_id).toBe(top.proposal_id);

    const plan = await tool('plan_checkout', { match_token_id: accepted.match_token_id, buyer_agent_id: 'ts-shopper' });
    expect(plan).toMatchObject({
      status: 'awaiting_confirmation',
      merchant_id: 'gateway-catalog',
      proposal_id: top.proposal_id,
      total: top.price,
    });

    // Waits for the checkout modes (merchant_redirect for catalog products): until they are in, the catalog
    // merchant's placeholder endpoint makes this confirm fail with merchant_handoff_failed.
    const confirmed = await tool('confirm_checkout', {
      checkout_id: plan.checkout_id,
      consent_granted: true,
      consent_statement: `Yes, buy ${top.title} for ${plan.total} ${plan.currency}.`,
      amount: plan.total,
      currency: plan.currency,
    });
    expect(confirmed).toMatchObject({ status: 'handed_off', checkout_mode: 'merchant_redirect', continue_url: top.buy_url });
    expect(confirmed.next_step).toContain('continue_url');
    const rest = await call(api.url, 'GET', `/v1/agentic-checkout/${plan.checkout_id}`, { token: dev.apiKey });
    expect(rest.body.checkout).toMatchObject({ status: 'handed_off', checkout_mode: 'merchant_redirect', payment_authorization_id: null });
  });
});
