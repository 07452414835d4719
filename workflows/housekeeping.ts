import * as wf from '@temporalio/workflow';
import type { HousekeepingActivities } from '../activities/housekeeping';
import type { RuntimeReconcilerActivities } from '../activities/runtime-reconciler';
import {
  SYSTEM_CHORE_NAMES,
  SYSTEM_CHORES,
  SYSTEM_CHORES_TICK_MS,
  SYSTEM_CHORES_UPDATES,
  type ChoreResult,
  type PurgeResult,
  type SweepResult,
  type SystemChore,
  type SystemChoresState,
} from './housekeeping.shared';
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

/**
 * Was every minute (Schedule `housekeeping-proposal-expiry`, now the `proposalExpiry` chore of
 * `systemChores`): marks due proposals expired for rows nobody reads. Kept so its recorded runs replay.
 */
export async function proposalExpirySweep(): Promise<SweepResult> {
  const affected = await activities.expireDueProposals();
  wf.setCurrentDetails(`expired ${affected} proposal(s)`);
  return { affected };
}
statesVersioning('PINNED', proposalExpirySweep);

/**
 * Was every 30 s (Schedule `housekeeping-surge-sweep`, now the `surgeSweep` chore of `systemChores`):
 * starts the fan-out of intents stored while Temporal was away. Kept so its recorded runs replay.
 */
export async function surgeSweep(): Promise<SweepResult> {
  const affected = await activities.startMissedSurges();
  wf.setCurrentDetails(`started ${affected} missed fan-out(s)`);
  return { affected };
}
statesVersioning('PINNED', surgeSweep);

// The loop's chores are cheap SQL (and a few describes): local activities, recorded as markers in the
// loop's own history rather than as activity tasks of their own. A failed one is retried a few times;
// past that the tick reports it and the next tick tries again.
const chores = wf.proxyLocalActivities<HousekeepingActivities & RuntimeReconcilerActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
});

export const runChoreUpdate = wf.defineUpdate<ChoreResult, [SystemChore]>(SYSTEM_CHORES_UPDATES.runChore);
export const pauseUpdate = wf.defineUpdate<SystemChoresState>(SYSTEM_CHORES_UPDATES.pause);
export const resumeUpdate = wf.defineUpdate<SystemChoresState>(SYSTEM_CHORES_UPDATES.resume);

/** Ticks per run before it continues as new: 240 × 30 s = 2 hours, so the list shows one row per 2 hours. */
const TICKS_PER_RUN = 240;

async function runOne(chore: SystemChore): Promise<ChoreResult> {
  try {
    switch (chore) {
      case 'surgeSweep':
        return { chore, started: await chores.startMissedSurges() };
      case 'proposalExpiry':
        return { chore, expired: await chores.expireDueProposals() };
      case 'runtimeReconcile': {
        const r = await chores.reconcileOpenRuntimes();
        return { chore, checked: r.checked, closed: r.closed.length, voided: r.voided.length };
      }
      case 'catalogEmbedding':
        return { chore, walk: await chores.startCatalogEmbeddingIfDue() };
    }
  } catch (err) {
    // The loop outlives a chore's failure (Postgres away for a minute): reported, tried again next tick.
    if (err instanceof wf.ActivityFailure) return { chore, failed: err.cause?.message ?? err.message };
    throw err;
  }
}

function said(r: ChoreResult): string {
  if ('failed' in r) return `${r.chore} failed: ${r.failed}`;
  switch (r.chore) {
    case 'surgeSweep':
      return `swept: ${r.started} missed fan-out(s)`;
    case 'proposalExpiry':
      return `expired ${r.expired} proposal(s)`;
    case 'runtimeReconcile':
      return `reconciled ${r.checked} open runtime(s): closed ${r.closed}, voided ${r.voided} authorization(s)`;
    case 'catalogEmbedding':
      return r.walk ? `catalog walk ${r.walk} under way` : 'catalog embedded: no walk needed';
  }
}

/**
 * The frequent system chores of one task queue, in one long-running run (workflow id `system-chores`,
 * started by every worker boot with USE_EXISTING, so there is one however many workers): every 30 s
 * it wakes and runs the chores that are due (the surge sweep each tick; proposal expiry, the runtime
 * reconcile and the catalog-embedding check each minute). Only real work makes a row of its own: a
 * catalog walk. Operators run a chore now (`runChore`), pause and resume the timed ones; the current
 * details say what the last tick did. It continues as new every 2 hours (or when Temporal suggests
 * it, or when a new worker version is current), carrying its chore clocks.
 */
export async function systemChores(state: SystemChoresState = { lastRunAtMs: {}, paused: false }): Promise<void> {
  const lastRunAtMs = { ...state.lastRunAtMs };
  let paused = state.paused;
  // One chore at a time: an operator's runChore waits for a tick's chore, and the other way round.
  let busy = false;
  const exclusively = async <T>(fn: () => Promise<T>): Promise<T> => {
    await wf.condition(() => !busy);
    busy = true;
    try {
      return await fn();
    } finally {
      busy = false;
    }
  };
  const snapshot = (): SystemChoresState => ({ lastRunAtMs: { ...lastRunAtMs }, paused });
  wf.setHandler(runChoreUpdate, (chore) => exclusively(() => runOne(chore)), {
    validator: (chore) => {
      if (!SYSTEM_CHORE_NAMES.includes(chore)) throw new Error(`unknown chore ${String(chore)}: one of ${SYSTEM_CHORE_NAMES.join(', ')}`);
    },
  });
  wf.setHandler(pauseUpdate, () => {
    paused = true;
    wf.setCurrentDetails(`paused at ${new Date().toISOString()} (runChore still runs a chore; resume to restart the timed ones)`);
    return snapshot();
  });
  wf.setHandler(resumeUpdate, () => {
    paused = false;
    return snapshot();
  });

  for (let tick = 0; tick < TICKS_PER_RUN; tick++) {
    if (!paused) {
      const done: string[] = [];
      for (const chore of SYSTEM_CHORE_NAMES) {
        const last = lastRunAtMs[chore];
        // Half a tick of slack: two 30 s timers make a minute even when a timer fires a little late.
        if (last !== undefined && Date.now() - last < SYSTEM_CHORES[chore].everyMs - SYSTEM_CHORES_TICK_MS / 2) continue;
        lastRunAtMs[chore] = Date.now();
        done.push(said(await exclusively(() => runOne(chore))));
      }
      wf.setCurrentDetails(`last tick ${new Date().toISOString()}: ${done.join('; ')}`);
    }
    await wf.sleep(SYSTEM_CHORES_TICK_MS);
    const info = wf.workflowInfo();
    if (info.continueAsNewSuggested || info.targetWorkerDeploymentVersionChanged) break;
  }
  // Pinned, and each run starts on the version current then: a release reaches the loop within a tick
  // of becoming current (targetWorkerDeploymentVersionChanged), with no patch and no old worker to keep.
  await wf.condition(wf.allHandlersFinished);
  await wf.makeContinueAsNewFunc<typeof systemChores>({ initialVersioningBehavior: 'AUTO_UPGRADE' })(snapshot());
}
statesVersioning('PINNED', systemChores);
