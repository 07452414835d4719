/**
 * The dispatch flow's contract (docs/DISPATCH.md): what the API, the activities and the workflows in
 * workflows/dispatch.ts share. Types and constants only — clients import this, never the workflow.
 */
import type { DeliveryState } from '../src/db/schema-dispatch';

/** Merchants per planning page, and pages per run before the history is renewed (continue-as-new). */
export const SURGE_PAGE_SIZE = 200;
export const SURGE_PAGES_PER_RUN = 25;

/**
 * Merchants in the head of a fan-out's first page: sent first, before the rest of the page is recorded
 * (recording 200 rows with their payloads takes tens of ms), so the first sends do not queue behind a
 * page's worth of others. A run started under `surge-first-page-local` sends the head from a local
 * activity in its first workflow task (workflows/dispatch.ts); the page activity does it for older runs
 * (src/dispatch/surge-page.ts deliverSurgePage).
 */
export const FIRST_PAGE_HEAD = 10;

/** Workflow `intentSurge`, id `surge-<intent_id>`. */
export interface SurgeInput {
  intentId: string;
  /** Where the previous run stopped (continue-as-new). */
  after?: string | null;
  started?: number;
  /** Merchants per page (default SURGE_PAGE_SIZE); small values exercise paging in tests. */
  pageSize?: number;
}

/** The fan-out's stages (`FlowStage`); a delivery's stage is its DeliveryState (`DeliveryState` attribute). */
export type SurgeStage = 'fan-out' | 'dispatched';
export type ReplayStage = 'dlq-replay';

export interface SurgeOutcome {
  intentId: string;
  deliveries: number;
}

/** What every delivery run needs from configuration; read by the activities so workflows stay pure. */
export interface DeliveryPolicy {
  schedule: number[];
  attemptTimeoutMs: number;
}

/** Workflow `delivery`, id `delivery-<delivery_id>` (`…-replay-<n>` for a replay). */
export interface DeliveryInput {
  deliveryId: string;
  intentId: string;
  merchantId: string;
  /** Attempt number of this run's first attempt; attempts keep counting across replays. */
  firstAttempt: number;
  /** 0 for the first run, n for the n-th replay out of the dead-letter queue. */
  replay: number;
  policy: DeliveryPolicy;
  /**
   * Set when the run takes over after the fan-out's own first attempt failed: the step of the retry
   * schedule its first attempt stands at, and the wait before it (drawn when that attempt failed).
   * Absent: the run starts the schedule from its first step.
   */
  scheduleIndex?: number;
  firstWaitMs?: number;
}

/** `details[0]` of the failure a dead-lettered run ends with. */
export interface DeliveryFailureDetails {
  delivery_id: string;
  intent_id: string;
  merchant_id: string;
  attempts: number;
  status_code: number | null;
  reason: string;
  next_action: string;
}

/** A delivery run's result (the UI's Result panel): which intent went to which merchant, and how it ended. */
export interface DeliveryOutcome {
  deliveryId: string;
  state: DeliveryState;
  attempts: number;
  intentId?: string;
  merchantId?: string;
  /** The merchant's answer to the last attempt. */
  statusCode?: number | null;
}

/**
 * Activity `deliverSurgePage`: one fan-out page sent. `deliveries` counts the page's deliveries,
 * `delivered` those delivered at the fan-out's first attempt, `runs` those handed to a delivery run.
 */
export interface SurgePageResult {
  deliveries: number;
  delivered: number;
  runs: number;
  next: string | null;
}

export interface StartedRun {
  delivery_id: string;
  workflow_id: string;
  /** Null when the run already existed (the start was repeated): that run owns the delivery. */
  run_id: string | null;
}

/** Deliveries claimed per batch, and the most one replay request moves (the rest waits for the next). */
export const REPLAY_BATCH = 200;
export const REPLAY_MAX = 2000;

/** Workflow `dlqReplay`. */
export interface ReplayInput {
  /** One delivery, or every dead-lettered one (up to REPLAY_MAX) when absent. */
  deliveryId: string | null;
  /** Only this merchant's dead letters (absent: every merchant's). */
  merchantId?: string | null;
}

/**
 * One replayed delivery as its batch left it: the workflow that has it now (the dlqReplay run for a
 * replay its own attempt delivered or is still sending, otherwise the replay's run) and its state then.
 */
export interface ReplayedDelivery extends StartedRun {
  state: DeliveryState;
  /**
   * The workflow is the dlqReplay run itself (its own attempt delivered the replay, or is still
   * sending it). Said here rather than compared with the run's own id, which a history replayed under
   * another id (the replay test) would not match.
   */
  by_replay_workflow: boolean;
}

export interface ReplayResult {
  scheduled: number;
  /** Of `scheduled`, those delivered when their batch ended. */
  delivered?: number;
  replays: ReplayedDelivery[];
}

/** The workflows' signatures, for typed starts by name (`client.workflow.start<IntentSurgeWorkflow>('intentSurge', …)`). */
export type IntentSurgeWorkflow = (input: SurgeInput) => Promise<SurgeOutcome>;
export type DeliveryWorkflow = (input: DeliveryInput) => Promise<DeliveryOutcome>;
export type DlqReplayWorkflow = (input: ReplayInput) => Promise<ReplayResult>;
