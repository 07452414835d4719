import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import type { Db } from '../src/db/connect';
import { startMerchantAgent, type MerchantAgent, type SurgeIntent } from '../examples/merchant-agent/agent';
import { fromMinorUnits } from '../src/money';

/**
 * `npm start -- --demo`: a merchant that answers every Intent.Surge, so a new intent turns into
 * proposals on its own. The reference merchant agent runs in this process on DEMO_AGENT_PORT; its
 * developer account, API key and merchant registration are made once through the gateway's own API
 * and kept in .data/demo.json, so a restart reuses them.
 */
export const DEMO_AGENT_PORT = 8787;
const MERCHANT_ID = 'demo-merchant';
const SUBSCRIPTIONS = [
  'running',
  'shoes',
  'headphones',
  'skincare',
  'coffee',
  'gift',
  'lamp',
  'yoga',
  'backpack',
  'camping',
  'kitchen',
  'toys',
];

interface DemoCredentials {
  apiKey: string;
  merchantToken: string;
  webhookSecret: string;
}

async function api(base: string, method: string, p: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + p, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  // The demo reads the API's own replies; their shapes are the OpenAPI document's, not restated here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const json = (await res.json()) as any;
  if (!res.ok) throw new Error(`demo setup: ${method} ${p} → ${res.status} ${json.error ?? ''} ${json.message ?? ''}`);
  return json;
}

async function enrol(base: string, inviteCode: string): Promise<DemoCredentials> {
  const dev = await api(base, 'POST', '/v1/developers/register', {
    display_name: 'Demo merchant',
    contact_email: `demo-merchant+${Date.now()}@example.com`,
    password: `demo-${Math.random().toString(36).slice(2)}-password`,
    invite_code: inviteCode,
  });
  const key = await api(
    base,
    'POST',
    '/v1/developers/keys',
    { label: 'demo merchant agent', scopes: ['proposals', 'intents', 'registry'] },
    { authorization: `Bearer ${dev.developer_token}` },
  );
  const reg = await api(
    base,
    'POST',
    '/v1/merchant/register',
    { merchant_id: MERCHANT_ID, agent_endpoint: `http://127.0.0.1:${DEMO_AGENT_PORT}/intents`, subscription_tags: SUBSCRIPTIONS },
    { authorization: `Bearer ${key.api_key}` },
  );
  return { apiKey: key.api_key, merchantToken: reg.registration_token, webhookSecret: reg.webhook_secret };
}

/** Offers the catalog's best-selling product that shares a tag with the intent, at its list price. */
function catalogOffer(db: Db) {
  return async (intent: SurgeIntent) => {
    const tags = intent.intent_tags ?? [];
    if (!tags.length) return null;
    const p = await db
      .selectFrom('products')
      .select(['product_id', 'title', 'price_cents'])
      .where(sql<boolean>`tags && ${sql.val(tags)}::text[]`)
      .where('currency', '=', 'USD')
      .where('inventory_qty', '>', 0)
      .orderBy('gmv_cents', 'desc')
      .limit(1)
      .executeTakeFirst();
    return p
      ? {
          product_id: p.product_id,
          offer_title: `${p.title}, ships in 3 days`,
          price: fromMinorUnits(p.price_cents, 'USD'),
          shipping_commitment: { max_days: 3, free: true },
        }
      : null;
  };
}

export async function startDemoMerchant(opts: { base: string; inviteCode: string; dataDir: string; db: Db }): Promise<MerchantAgent> {
  const file = path.join(opts.dataDir, 'demo.json');
  let creds: DemoCredentials;
  try {
    creds = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    creds = await enrol(opts.base, opts.inviteCode);
    await writeFile(file, JSON.stringify(creds, null, 2), { mode: 0o600 });
  }
  return startMerchantAgent({
    port: DEMO_AGENT_PORT,
    merchantId: MERCHANT_ID,
    merchantToken: creds.merchantToken,
    webhookSecret: creds.webhookSecret,
    apiKey: creds.apiKey,
    chooseOffer: catalogOffer(opts.db),
    onEvent: (e) => console.log(`demo merchant: ${e.outcome} ${e.webhookId ?? ''} ${e.proposal ? JSON.stringify(e.proposal) : ''}`),
  });
}
