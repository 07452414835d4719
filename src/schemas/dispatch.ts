import { z } from 'zod';
import { isoDateTime, text } from './common';

export const DeliveryStateEnum = z.enum(['pending', 'inflight', 'delivered', 'dlq']);

export const DispatchQueueQuery = z.object({
  state: DeliveryStateEnum.optional(),
  merchant_id: text(200).optional(),
  intent_id: text(100).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100).meta({ description: 'Newest first; 1..500, default 100.' }),
});

export const DeliveryAttempt = z
  .object({
    attempt: z.number().int(),
    replay: z.number().int().meta({ description: '0: first run; n: n-th replay out of the dead-letter queue.' }),
    outcome: z.enum(['delivered', 'failed', 'gone', 'unsafe_endpoint']),
    status_code: z.number().int().nullable(),
    error: z.string().nullable(),
    latency_ms: z.number().int(),
    retry_after_s: z.number().int().nullable(),
    attempted_at: isoDateTime,
  })
  .meta({ id: 'DeliveryAttempt' });

export const Delivery = z
  .object({
    delivery_id: z.string().meta({ description: 'Also the webhook-id header of every attempt.' }),
    intent_id: z.string(),
    merchant_id: z.string(),
    state: DeliveryStateEnum,
    endpoint: z.string(),
    attempts: z.number().int(),
    replays: z.number().int(),
    workflow_id: z.string().meta({
      description:
        "The Temporal workflow that sends it now or sent it last: the intent's fan-out (surge-<intent_id>) for the first attempt; " +
        "its own run (delivery-<id>) once the first attempt did not deliver. After a replay: the dlqReplay workflow (the retry answer's replay_workflow_id) " +
        "while it sends the replay's own attempt and once that attempt delivered it; the replay's run (delivery-<id>-replay-<n>) once that attempt did not deliver.",
    }),
    next_attempt_at: isoDateTime.nullable(),
    last_attempt_at: isoDateTime.nullable(),
    delivered_at: isoDateTime.nullable(),
    dlq_at: isoDateTime.nullable(),
    dlq_reason: z.string().nullable(),
    created_at: isoDateTime,
    last_attempt: DeliveryAttempt.nullable(),
  })
  .meta({ id: 'Delivery' });

const count = z.number().int();
export const DispatchQueue = z
  .object({
    summary: z
      .object({ pending: count, inflight: count, delivered: count, dlq: count })
      .meta({ description: 'Counts per state for the merchant_id / intent_id filter.' }),
    deliveries: z.array(Delivery),
  })
  .meta({ id: 'DispatchQueue' });

export const DeliveryIdParams = z.object({ deliveryId: z.string().min(1).max(100) });

export const DeliveryDetail = z.object({ delivery: Delivery, attempts: z.array(DeliveryAttempt) }).meta({ id: 'DeliveryDetail' });

export const RetryBody = z
  .strictObject({
    delivery_id: text(100)
      .optional()
      .meta({ description: 'Absent: every dead-lettered delivery (of merchant_id, when given; up to 2000 per call; see remaining).' }),
    merchant_id: text(200).optional().meta({
      description:
        "Only this merchant's dead letters (with delivery_id: that delivery must be this merchant's, else 404). One that has none starts nothing.",
    }),
    state: z.enum(['dlq'], { message: "only dead-lettered deliveries (state 'dlq') can be replayed" }).default('dlq'),
  })
  .meta({ id: 'DispatchRetryRequest' });

export const ReplayedDelivery = z
  .object({
    delivery_id: z.string(),
    merchant_id: z.string(),
    outcome: z.enum(['delivered', 'retrying', 'dead_lettered', 'sending']).meta({
      description:
        'How the replay stands as the call answers: delivered; retrying (its attempt failed: its run delivery-<id>-replay-<n> attempts again at next_attempt_at); dead_lettered (again: reason says why); sending (no outcome yet: follow workflow_id, or GET the delivery).',
    }),
    state: DeliveryStateEnum.meta({ description: "The delivery's state now, as the queue shows it." }),
    attempts: z.number().int(),
    reason: z
      .string()
      .nullable()
      .meta({ description: "retrying: the failed attempt's error; dead_lettered: the dead-letter reason; otherwise null." }),
    status_code: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The replay's last attempt's HTTP status (null before an answer, or without one)." }),
    next_attempt_at: isoDateTime.nullable().meta({ description: 'retrying: when its run attempts again.' }),
    workflow_id: z.string().meta({
      description:
        "The workflow that has the delivery now, as the queue names it: the replay workflow (replay_workflow_id) for one its own attempt delivered or is sending; otherwise the replay's run delivery-<id>-replay-<n>.",
    }),
    run_id: z
      .string()
      .nullable()
      .meta({ description: "That workflow's run id (null: a run this call did not start, e.g. one that existed already)." }),
  })
  .meta({ id: 'DispatchReplayedDelivery' });

export const RetryResult = z
  .object({
    state: z.literal('dlq').meta({
      description: "The queue replayed from: dead-lettered deliveries (the request's state); each replay's own state is in replays.",
    }),
    status: z.enum(['scheduled', 'scheduling', 'nothing_to_replay']).meta({
      description:
        'scheduled: the replay workflow has sent every replay (each outcome in replays); scheduling: it is still sending them, follow replay_workflow_id; nothing_to_replay: no dead letter matched, no workflow was started.',
    }),
    scheduled: z.number().int().meta({ description: 'Deliveries replayed by this call.' }),
    merchant_id: z.string().nullable().meta({ description: "The request's merchant_id filter, or null." }),
    remaining: z.number().int().meta({
      description:
        "Deliveries still dead-lettered after this call (of merchant_id, when given): not replayed by it (past the 2000-per-call cap, or dead-lettered meanwhile, a replay's included). Call again while it is above 0.",
    }),
    summary: z.string().meta({
      description: 'The answer in words: how many were replayed and how they went, how many are still dead-lettered and what to do next.',
    }),
    replay_workflow_id: z.string().nullable().meta({ description: 'The dlqReplay workflow of this call; null when nothing was replayed.' }),
    replays: z.array(ReplayedDelivery).meta({ description: 'Each replayed delivery with its outcome and the workflow that has it now.' }),
  })
  .meta({ id: 'DispatchRetryResult' });
