import { REPLAY_MAX } from '../../workflows/dispatch.shared';

/** How a dead-letter replay is told to the caller (src/dispatch/client.ts starts it). */
const deliveries = (n: number) => `${n} ${n === 1 ? 'delivery' : 'deliveries'}`;

/**
 * `remaining` alone ("state":"dlq","remaining":13) read as if 13 replays had failed; it counts the
 * deliveries still dead-lettered after this call (past the per-call cap, or dead-lettered meanwhile).
 */
export function replaySummary(scheduled: number | null, remaining: number, deliveryId?: string): string {
  const started =
    scheduled === null
      ? 'Replays are still being started; follow replay_workflow_id.'
      : `Replayed ${deliveries(scheduled)} from the dead-letter queue: each is pending again and retried on the normal schedule.`;
  const left =
    remaining === 0
      ? 'No delivery is dead-lettered now.'
      : `${deliveries(remaining)} ${remaining === 1 ? 'is' : 'are'} still dead-lettered (remaining)${deliveryId ? '' : `; call again with {} to replay them (at most ${REPLAY_MAX.toLocaleString('en-US')} per call)`}.`;
  return `${started} ${left}`;
}
