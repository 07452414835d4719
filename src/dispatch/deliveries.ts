import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/connect';
import type { DeliveriesTable, DeliveryAttemptsTable, DeliveryState } from '../db/schema-dispatch';
import { AppError } from '../errors';
import { newId } from '../ids';
import { intentView } from '../matching/intents';
import { SYSTEM, seesMerchant, type Caller } from '../tenancy';
import { workflowIds } from '../temporal/names';
import { iso } from '../time';
import { subscribedMerchants } from './subscribers';
import { takesDeliveriesSql } from '../registry/merchant-protocol';
import type { SendableDelivery } from './attempt';

export type DeliveryRow = Selectable<DeliveriesTable>;
export type AttemptRow = Selectable<DeliveryAttemptsTable>;

export const DELIVERY_STATES = ['pending', 'inflight', 'delivered', 'dlq'] as const satisfies readonly DeliveryState[];

/** How long a merchant has to answer when its workflow_context does not say. */
export const DEFAULT_RESPONSE_WINDOW_S = 600;

export const deliveryNotFound = (id: string) => new AppError(404, 'delivery_not_found', `No delivery '${id}'.`);

/** What the surge workflow needs to start one delivery run. */
export interface PlannedDelivery {
  delivery_id: string;
  merchant_id: string;
  intent_id: string;
  workflow_id: string;
  /** Attempt number of this run's first attempt (attempts continue counting across replays). */
  first_attempt: number;
  replay: number;
  /**
   * A run that takes over after the fan-out's own first attempt failed: where in the retry schedule
   * it starts and how long it waits before its first attempt (drawn when that attempt failed).
   */
  schedule_index?: number;
  first_wait_ms?: number;
}

/** A delivery of a fan-out page that is not delivered yet, as the fan-out's first attempt finds it. */
export interface OpenDelivery {
  delivery_id: string;
  merchant_id: string;
  intent_id: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: Date | null;
}

/** An open delivery with what sending it takes (its row and its merchant's), read where it is found. */
export type SendableOpenDelivery = OpenDelivery & SendableDelivery & { replays: number };

const SENDABLE_COLUMNS = [
  'd.delivery_id',
  'd.merchant_id',
  'd.intent_id',
  'd.state',
  'd.attempts',
  'd.next_attempt_at',
  'd.replays',
  'd.endpoint',
  'd.payload',
  'm.status as merchant_status',
  'm.webhook_secret_sealed',
] as const;

/**
 * Records one page of the fan-out: the merchants subscribed to the intent (src/dispatch/subscribers.ts),
 * in merchant_id order after `after`, each with its delivery row (created once: recording a page again
 * keeps the same delivery ids). Null when the intent is gone.
 */
async function recordSurgePage(
  db: Db,
  opts: { intentId: string; after: string | null; limit: number; publicBaseUrl: string },
): Promise<{ merchantIds: string[]; merchants: Map<string, SurgeMerchant>; created: CreatedDelivery[]; next: string | null }> {
  const none = { merchantIds: [], merchants: new Map(), created: [], next: null };
  const intent = await db.selectFrom('intents').selectAll().where('intent_id', '=', opts.intentId).executeTakeFirst();
  if (!intent) return none;
  // Deliveries go to gateway agents only: a UCP/ACP merchant or a redirect-only shop takes no webhooks.
  const merchants = await subscribedMerchants(db, intent)
    .where(takesDeliveriesSql())
    .select(['merchant_id', 'agent_endpoint', 'workflow_context', 'status', 'webhook_secret_sealed'])
    .$if(opts.after !== null, (q) => q.where('merchant_id', '>', opts.after!))
    .limit(opts.limit)
    .execute();
  if (!merchants.length) return none;

  const now = new Date();
  const view = intentView(intent);
  const rows = merchants.map((m) => {
    const deliveryId = newId('dlv');
    const window = m.workflow_context.proposal_response_sla_seconds ?? DEFAULT_RESPONSE_WINDOW_S;
    return {
      delivery_id: deliveryId,
      intent_id: intent.intent_id,
      merchant_id: m.merchant_id,
      // Created in flight at attempt 1: the fan-out's own first attempt is counted as it is recorded (see openSurgePage).
      state: 'inflight' as const,
      attempts: 1,
      last_attempt_at: now,
      endpoint: m.agent_endpoint,
      payload: JSON.stringify({
        type: 'intent.surge',
        timestamp: now.toISOString(),
        data: {
          delivery_id: deliveryId,
          merchant_id: m.merchant_id,
          intent: view,
          reply: { proposals_url: `${opts.publicBaseUrl}/v1/proposals`, respond_by: new Date(now.getTime() + window * 1000).toISOString() },
        },
      }),
      created_at: now,
      updated_at: now,
    };
  });
  const created = await db
    .insertInto('deliveries')
    .values(rows)
    .onConflict((oc) => oc.columns(['intent_id', 'merchant_id']).doNothing())
    .returning(['delivery_id', 'merchant_id', 'intent_id', 'state', 'attempts', 'next_attempt_at', 'replays', 'endpoint', 'payload'])
    .execute();
  return {
    merchantIds: merchants.map((m) => m.merchant_id),
    merchants: new Map(merchants.map((m) => [m.merchant_id, m])),
    created,
    next: merchants.length < opts.limit ? null : merchants.at(-1)!.merchant_id,
  };
}

type SurgeMerchant = { merchant_id: string; status: string; webhook_secret_sealed: string };
type CreatedDelivery = Omit<SendableOpenDelivery, 'merchant_status' | 'webhook_secret_sealed'>;

/**
 * One page of the fan-out for the fan-out's own first attempts: every delivery of the page not yet
 * delivered, whatever its state, with what sending it takes (`size`: the page's deliveries, delivered
 * ones included), so a re-run after a worker crash sees what the last run left (see
 * src/dispatch/surge-page.ts). A delivery is created in flight at attempt 1, the fan-out's attempt,
 * so the page's first sends wait for no statement but the one that records them; one statement more
 * reads the page's deliveries recorded before (only on a re-run).
 */
export async function openSurgePage(
  db: Db,
  opts: { intentId: string; after: string | null; limit: number; publicBaseUrl: string },
): Promise<{ deliveries: SendableOpenDelivery[]; size: number; next: string | null }> {
  const page = await recordSurgePage(db, opts);
  if (!page.merchantIds.length) return { deliveries: [], size: 0, next: null };
  const withMerchant = (d: CreatedDelivery): SendableOpenDelivery => {
    const m = page.merchants.get(d.merchant_id)!;
    return { ...d, merchant_status: m.status, webhook_secret_sealed: m.webhook_secret_sealed };
  };
  const open = page.created.map(withMerchant);
  if (open.length < page.merchantIds.length) {
    const created = new Set(page.created.map((d) => d.merchant_id));
    const before = page.merchantIds.filter((id) => !created.has(id));
    open.push(
      ...(await db
        .selectFrom('deliveries as d')
        .innerJoin('merchants as m', 'm.merchant_id', 'd.merchant_id')
        .select(SENDABLE_COLUMNS)
        .where('d.intent_id', '=', opts.intentId)
        .where('d.merchant_id', 'in', before)
        .where('d.replays', '=', 0)
        .where('d.state', '!=', 'delivered')
        .execute()),
    );
    const order = new Map(page.merchantIds.map((id, i) => [id, i]));
    open.sort((a, b) => order.get(a.merchant_id)! - order.get(b.merchant_id)!);
  }
  return { deliveries: open, size: page.merchantIds.length, next: page.next };
}

/**
 * Moves up to `limit` dead-lettered deliveries (the one named, or the merchant's, or any) back to
 * pending for their replay, owned by the dlqReplay workflow `replayWorkflowId` (the queue names it
 * until a run of the replay's own takes the delivery over). The state check and the move are one
 * statement, so two concurrent replays never claim the same delivery, and a delivered one is never
 * claimed at all.
 */
export async function claimForReplay(
  db: Db,
  opts: { deliveryId?: string; merchantId?: string; limit: number; replayWorkflowId: string },
): Promise<PlannedDelivery[]> {
  const claimed = await db
    .updateTable('deliveries')
    .set({
      state: 'pending',
      replays: sql`replays + 1`,
      dlq_at: null,
      dlq_reason: null,
      next_attempt_at: null,
      replay_workflow_id: opts.replayWorkflowId,
      updated_at: sql`now()`,
    })
    .where('delivery_id', 'in', (qb) =>
      qb
        .selectFrom('deliveries')
        .select('delivery_id')
        .where('state', '=', 'dlq')
        .$if(opts.deliveryId !== undefined, (q) => q.where('delivery_id', '=', opts.deliveryId!))
        .$if(opts.merchantId !== undefined, (q) => q.where('merchant_id', '=', opts.merchantId!))
        .orderBy('dlq_at')
        .limit(opts.limit)
        .forUpdate()
        .skipLocked(),
    )
    .where('state', '=', 'dlq')
    .returning(['delivery_id', 'merchant_id', 'intent_id', 'attempts', 'replays'])
    .execute();
  return claimed.map((d) => ({
    delivery_id: d.delivery_id,
    merchant_id: d.merchant_id,
    intent_id: d.intent_id,
    workflow_id: workflowIds.delivery(d.delivery_id, d.replays),
    first_attempt: d.attempts + 1,
    replay: d.replays,
  }));
}

/** The rows of claimed deliveries as a replay batch finds them now (src/dispatch/replay.ts). */
export async function claimedDeliveries(db: Db, deliveryIds: string[]): Promise<SendableOpenDelivery[]> {
  if (!deliveryIds.length) return [];
  return db
    .selectFrom('deliveries as d')
    .innerJoin('merchants as m', 'm.merchant_id', 'd.merchant_id')
    .select(SENDABLE_COLUMNS)
    .where('d.delivery_id', 'in', deliveryIds)
    .execute();
}

/** What names the workflow that has each of these deliveries now (deliveryWorkflowId), and their state. */
export async function deliveryOwners(db: Db, deliveryIds: string[]) {
  if (!deliveryIds.length) return [];
  return db
    .selectFrom('deliveries')
    .select(['delivery_id', 'intent_id', 'state', 'attempts', 'replays', 'replay_workflow_id'])
    .where('delivery_id', 'in', deliveryIds)
    .execute();
}

/** A delivery the caller may read (docs/TENANCY.md): another merchant's answers as an unknown id does. */
export async function getDelivery(db: Db, id: string, caller: Caller = SYSTEM): Promise<DeliveryRow> {
  const d = await db.selectFrom('deliveries').selectAll().where('delivery_id', '=', id).executeTakeFirst();
  if (!d || !seesMerchant(caller, d.merchant_id)) throw deliveryNotFound(id);
  return d;
}

export interface QueueFilter {
  state?: DeliveryState;
  merchant_id?: string;
  intent_id?: string;
  limit: number;
}

/**
 * The dispatch queue: counts per state (for the merchant/intent filter) and the newest deliveries with
 * their last attempt. A merchant caller sees its own deliveries only, whatever the filter names.
 */
export async function listDispatchQueue(db: Db, f: QueueFilter, caller: Caller = SYSTEM) {
  // An API caller without a merchant token is refused before this; '' keeps its list empty regardless.
  const own = caller.kind === 'api' ? (caller.merchantId ?? '') : null;
  const scoped = db
    .selectFrom('deliveries')
    .$if(own !== null, (q) => q.where('merchant_id', '=', own!))
    .$if(f.merchant_id !== undefined, (q) => q.where('merchant_id', '=', f.merchant_id!))
    .$if(f.intent_id !== undefined, (q) => q.where('intent_id', '=', f.intent_id!));
  const [counts, rows] = await Promise.all([
    scoped
      .select(['state', sql<number>`count(*)::int`.as('n')])
      .groupBy('state')
      .execute(),
    scoped
      .selectAll('deliveries')
      .$if(f.state !== undefined, (q) => q.where('state', '=', f.state!))
      .orderBy('created_at', 'desc')
      .orderBy('delivery_id')
      .limit(f.limit)
      .execute(),
  ]);
  const lastById = await lastAttempts(
    db,
    rows.map((r) => r.delivery_id),
  );
  const summary = Object.fromEntries(DELIVERY_STATES.map((s) => [s, counts.find((c) => c.state === s)?.n ?? 0])) as Record<
    DeliveryState,
    number
  >;
  return { summary, deliveries: rows.map((r) => deliveryView(r, lastById.get(r.delivery_id) ?? null)) };
}

export async function listAttempts(db: Db, deliveryId: string): Promise<AttemptRow[]> {
  return db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('attempt').execute();
}

export function attemptView(a: AttemptRow) {
  return {
    attempt: a.attempt,
    replay: a.replay,
    outcome: a.outcome,
    status_code: a.status_code,
    error: a.error,
    latency_ms: a.latency_ms,
    retry_after_s: a.retry_after_s,
    attempted_at: iso(a.attempted_at),
  };
}

/**
 * The workflow that sends the delivery now, or sent it last: the fan-out (`surge-<intent_id>`) for
 * the first attempt, and the delivery's own run once it has one, which is when its first attempt did
 * not deliver (a retry waits in it; a dead letter ends it Failed). A replay is the dlqReplay workflow's
 * while its own attempt is sent and once that attempt delivered it (`replay_workflow_id`), and its run
 * `delivery-<id>-replay-<n>` once that attempt did not deliver. (Deliveries recorded before the fan-out
 * sent first attempts all had runs: those delivered at attempt 1 show the fan-out. Replays delivered
 * by their own attempt before `replay_workflow_id` was recorded show the run they would have had.)
 */
export function deliveryWorkflowId(
  d: Pick<DeliveryRow, 'delivery_id' | 'intent_id' | 'state' | 'attempts' | 'replays' | 'replay_workflow_id'>,
): string {
  if (d.replay_workflow_id) return d.replay_workflow_id;
  const ownRun = d.replays > 0 || d.attempts > 1 || d.state === 'dlq' || (d.state === 'pending' && d.attempts === 1);
  return ownRun ? workflowIds.delivery(d.delivery_id, d.replays) : workflowIds.surge(d.intent_id);
}

export function deliveryView(d: DeliveryRow, lastAttempt: AttemptRow | null) {
  return {
    delivery_id: d.delivery_id,
    intent_id: d.intent_id,
    merchant_id: d.merchant_id,
    state: d.state,
    endpoint: d.endpoint,
    attempts: d.attempts,
    replays: d.replays,
    workflow_id: deliveryWorkflowId(d),
    next_attempt_at: iso(d.next_attempt_at),
    last_attempt_at: iso(d.last_attempt_at),
    delivered_at: iso(d.delivered_at),
    dlq_at: iso(d.dlq_at),
    dlq_reason: d.dlq_reason,
    created_at: iso(d.created_at),
    last_attempt: lastAttempt ? attemptView(lastAttempt) : null,
  };
}

/** Deliveries in the dead-letter queue now (one merchant's, when named). */
export async function countDeadLetters(db: Db, f: { merchantId?: string } = {}): Promise<number> {
  const row = await db
    .selectFrom('deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', '=', 'dlq')
    .$if(f.merchantId !== undefined, (q) => q.where('merchant_id', '=', f.merchantId!))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Deliveries by id with their last attempt (null before the first), in no particular order. */
export async function deliveriesWithLastAttempt(db: Db, ids: string[]): Promise<Array<{ delivery: DeliveryRow; last: AttemptRow | null }>> {
  if (!ids.length) return [];
  const [rows, last] = await Promise.all([
    db.selectFrom('deliveries').selectAll().where('delivery_id', 'in', ids).execute(),
    lastAttempts(db, ids),
  ]);
  return rows.map((delivery) => ({ delivery, last: last.get(delivery.delivery_id) ?? null }));
}

/** The last attempt of each of these deliveries. */
async function lastAttempts(db: Db, ids: string[]): Promise<Map<string, AttemptRow>> {
  if (!ids.length) return new Map();
  const rows = await db
    .selectFrom('delivery_attempts')
    .selectAll()
    .distinctOn('delivery_id')
    .where('delivery_id', 'in', ids)
    .orderBy('delivery_id')
    .orderBy('attempt', 'desc')
    .execute();
  return new Map(rows.map((a) => [a.delivery_id, a]));
}
