import * as wf from '@temporalio/workflow';
import type { HousekeepingActivities } from '../activities/housekeeping';
import type { PurgeResult, SweepResult } from './housekeeping.shared';
import { statesVersioning } from './versioning';

// A chore's round is short; a failed one is retried a few times, then the next tick tries again.
const activities = wf.proxyActivities<HousekeepingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/** Hourly (Schedule `housekeeping-purge`): drops what is no longer replayed or counted, so the tables stay small. */
export async function housekeepingPurge(): Promise<PurgeResult> {
  const idempotencyKeys = await activities.purgeExpiredIdempotencyKeys();
  const rateLimitBuckets = await activities.purgeExpiredRateLimits();
  wf.setCurrentDetails(`purged ${idempotencyKeys} idempotency record(s), ${rateLimitBuckets} rate-limit bucket(s)`);
  return { idempotencyKeys, rateLimitBuckets };
}
// Pinned, as every housekeeping run: a scheduled sweep of seconds; each tick starts on the current version.
statesVersioning('PINNED', housekeepingPurge);

/** Every minute (Schedule `housekeeping-proposal-expiry`): marks due proposals expired for rows nobody reads. */
export async function proposalExpirySweep(): Promise<SweepResult> {
  const affected = await activities.expireDueProposals();
  wf.setCurrentDetails(`expired ${affected} proposal(s)`);
  return { affected };
}
statesVersioning('PINNED', proposalExpirySweep);

/** Every 30 s (Schedule `housekeeping-surge-sweep`): starts the fan-out of intents stored while Temporal was away. */
export async function surgeSweep(): Promise<SweepResult> {
  const affected = await activities.startMissedSurges();
  wf.setCurrentDetails(`started ${affected} missed fan-out(s)`);
  return { affected };
}
statesVersioning('PINNED', surgeSweep);
