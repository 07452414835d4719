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
        "its own run (delivery-<id>) once the first attempt did not deliver. After a replay: the replay's run (delivery-<id>-replay-<n>), " +
        "which exists only when the replay's own attempt (sent by the dlqReplay workflow, the retry answer's replay_workflow_id) did not deliver.",
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
    delivery_id: text(100).optional().meta({ description: 'Absent: every dead-lettered delivery (up to 2000 per call; see remaining).' }),
    state: z.enum(['dlq'], { message: "only dead-lettered deliveries (state 'dlq') can be replayed" }).default('dlq'),
  })
  .meta({ id: 'DispatchRetryRequest' });

export const RetryResult = z
  .object({
    state: z.literal('dlq').meta({ description: "The queue replayed from: dead-lettered deliveries (the request's state)." }),
    status: z
      .enum(['scheduled', 'scheduling'])
      .meta({ description: 'scheduling: the replay workflow is still sending the replays; follow replay_workflow_id.' }),
    scheduled: z.number().int(),
    remaining: z.number().int().meta({
      description:
        'Deliveries still dead-lettered after this call (not replayed by it: past the 2000-per-call cap, or dead-lettered meanwhile). Not a count of failures; call again while it is above 0.',
    }),
    summary: z
      .string()
      .meta({ description: 'The answer in words: how many were replayed, how many are still dead-lettered and what to do next.' }),
    replay_workflow_id: z.string(),
    replays: z.array(z.object({ delivery_id: z.string(), workflow_id: z.string(), run_id: z.string().nullable() })).meta({
      description:
        "Each replay and the workflow that sent it: the replay workflow (replay_workflow_id, and its run id) when the replay's own attempt delivered; " +
        'otherwise its run delivery-<id>-replay-<n>, which retries on the schedule or ends Failed if dead-lettered again (run_id null: that run already existed).',
    }),
  })
  .meta({ id: 'DispatchRetryResult' });
