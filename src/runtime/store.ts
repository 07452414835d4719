import { sql, type Insertable, type OnConflictBuilder, type QueryCreator, type Selectable, type Transaction } from 'kysely';
import type { ProposalTransitionsTable, ProposalsTable } from '../db/schema-matching';
import type { Database } from '../db/schema';
import type { Db } from '../db/connect';
import type { BudgetConsumed, CommerceBudget, CommerceRuntimeStepsTable, CommerceRuntimesTable, RuntimeTrace } from '../db/schema-runtime';
import { AppError } from '../errors';
import { newId } from '../ids';
import { iso } from '../time';
import { mayRead, SYSTEM, type Caller } from '../tenancy';
import { getIntent, intentView } from '../matching/intents';
import { getProposal, proposalView } from '../matching/proposals';
import { matchSessionView } from '../matching/match-sessions';
import { getMatchToken, matchTokenView } from '../matching/match-tokens';
import { workflowIds } from '../temporal/names';

export type RuntimeRow = Selectable<CommerceRuntimesTable>;
export type RuntimeStepRow = Selectable<CommerceRuntimeStepsTable>;

/** The loop every run follows; runtime_trace.loop names it. */
export const RUNTIME_LOOP = 'resolve_intent → merchant_query* → catalog_query? → rank → mint_token → authorize_payment?';

export const runtimeNotFound = (id: string) => new AppError(404, 'runtime_not_found', `No commerce runtime '${id}'.`);

export interface NewRuntime {
  runtimeId: string;
  entryAgentId: string;
  mode: string;
  budget: CommerceBudget;
  memoryRefs: Record<string, unknown>[];
  skillRefs: string[];
  request: Record<string, unknown>;
  developerId: string | null;
  keyId: string | null;
}

/** Stores a new run; false when a run with this id is already stored (a retried keyed request). */
export async function insertRuntime(db: Db, r: NewRuntime): Promise<boolean> {
  const trace: RuntimeTrace = { loop: RUNTIME_LOOP, current_step: null, audit_status: 'running' };
  const res = await db
    .insertInto('commerce_runtimes')
    .values({
      runtime_id: r.runtimeId,
      entry_agent_id: r.entryAgentId,
      mode: r.mode,
      stage: 'queued',
      intent_id: null,
      proposal_id: null,
      match_session_id: null,
      match_token_id: null,
      commerce_budget: JSON.stringify(r.budget),
      commerce_memory_refs: JSON.stringify(r.memoryRefs),
      skill_refs: JSON.stringify(r.skillRefs),
      request: JSON.stringify(r.request),
      runtime_trace: JSON.stringify(trace),
      developer_id: r.developerId,
      key_id: r.keyId,
    })
    .onConflict((oc) => oc.column('runtime_id').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function deleteRuntime(db: Db, runtimeId: string): Promise<void> {
  await db.deleteFrom('commerce_runtimes').where('runtime_id', '=', runtimeId).execute();
}

export async function getRuntimeRow(db: Db, runtimeId: string): Promise<RuntimeRow> {
  const r = await db.selectFrom('commerce_runtimes').selectAll().where('runtime_id', '=', runtimeId).executeTakeFirst();
  if (!r) throw runtimeNotFound(runtimeId);
  return r;
}

export interface StepRecord {
  runtimeId: string;
  index: number;
  agentId: string;
  kind: string;
  status: 'succeeded' | 'failed' | 'timeout' | 'skipped';
  inputSummary: string;
  outputSummary: string;
  consumed: BudgetConsumed;
  startedAt: Date;
  error?: string | null;
}

type StepLinks = {
  stage?: string;
  links?: Partial<Pick<RuntimeRow, 'intent_id' | 'proposal_id' | 'match_session_id' | 'match_token_id'>>;
  /** The run ends with this step: its final stage and audit status, written as finishRuntime writes them. */
  finish?: { stage: string; auditStatus: string };
};

const stepValues = (s: StepRecord) => ({
  agent_id: s.agentId,
  kind: s.kind,
  status: s.status,
  input_summary: s.inputSummary.slice(0, 2000),
  output_summary: s.outputSummary.slice(0, 2000),
  budget_consumed: JSON.stringify(s.consumed),
  started_at: s.startedAt,
  finished_at: new Date(),
  error: s.error ?? null,
});
const stepRow = (s: StepRecord) => ({ step_id: `${s.runtimeId}-s${s.index}`, runtime_id: s.runtimeId, index: s.index, ...stepValues(s) });
/** Every column of stepValues (the record below fails to compile when one is missing). */
const STEP_VALUE_COLUMNS = Object.keys({
  agent_id: true,
  kind: true,
  status: true,
  input_summary: true,
  output_summary: true,
  budget_consumed: true,
  started_at: true,
  finished_at: true,
  error: true,
} satisfies Record<keyof ReturnType<typeof stepValues>, true>) as Array<keyof ReturnType<typeof stepValues>>;
/** A step recorded again (a retried activity) is rewritten with the new row's values: one upsert rule for one step or many. */
const rewriteStep = (oc: OnConflictBuilder<Database, 'commerce_runtime_steps'>) =>
  oc
    .columns(['runtime_id', 'index'])
    .doUpdateSet((eb) => Object.fromEntries(STEP_VALUE_COLUMNS.map((c) => [c, eb.ref(`excluded.${c}`)])) as never);

/** The run's update that goes with recording steps up to `index`: its trace points at the latest step. */
const runAfterSteps = (runtime: StepLinks, index: number) => {
  const traced = sql<RuntimeTrace>`jsonb_set(runtime_trace, '{current_step}', to_jsonb(greatest(coalesce((runtime_trace->>'current_step')::int, -1), ${index}::int)))`;
  const f = runtime.finish;
  return {
    ...(runtime.stage ? { stage: runtime.stage } : {}),
    ...(runtime.links ?? {}),
    ...(f
      ? {
          stage: f.stage,
          runtime_trace: sql<RuntimeTrace>`jsonb_set(${traced}, '{audit_status}', to_jsonb(${f.auditStatus}::text))`,
          finished_at: new Date(),
        }
      : { runtime_trace: traced }),
    updated_at: new Date(),
  };
};

/**
 * Records one AgentStep and moves the run's trace to it, in one statement (the step's upsert as a
 * data-modifying CTE beside the run's update): one round trip instead of a transaction of four, and
 * a runtime records seven or more steps. Keyed by (runtime, index): a retried activity rewrites its
 * step rather than adding another. Inside a caller's transaction (a step that audits a change made in
 * the same transaction) pass the transaction.
 */
export async function recordStep(db: Db | Transaction<Database>, s: StepRecord, runtime: StepLinks = {}): Promise<string> {
  const row = stepRow(s);
  await db
    .with('step', (q) => q.insertInto('commerce_runtime_steps').values(row).onConflict(rewriteStep).returning('step_id'))
    .updateTable('commerce_runtimes')
    .set(runAfterSteps(runtime, s.index))
    .where('runtime_id', '=', s.runtimeId)
    .execute();
  return row.step_id;
}

/**
 * Records several AgentSteps of one run (e.g. the merchant queries of a round) together with the
 * proposals they stored and those proposals' first transitions, in one statement: the steps and
 * their effects land together or not at all, and a round costs one round trip however many
 * merchants it asked. Keyed like recordStep. Returns the proposals as stored.
 */
export async function recordStepsWithProposals(
  db: Db,
  steps: StepRecord[],
  proposals: Insertable<ProposalsTable>[],
  transitions: Insertable<ProposalTransitionsTable>[],
): Promise<Selectable<ProposalsTable>[]> {
  if (!steps.length) throw new Error('recordStepsWithProposals: no step');
  const runtimeId = steps[0]!.runtimeId;
  if (steps.some((s) => s.runtimeId !== runtimeId)) throw new Error('recordStepsWithProposals: steps of one run only');
  const last = Math.max(...steps.map((s) => s.index));
  const upsert = (q: QueryCreator<Database>) =>
    q.insertInto('commerce_runtime_steps').values(steps.map(stepRow)).onConflict(rewriteStep).returning('step_id');
  if (!proposals.length) {
    await db
      .with('step', upsert)
      .updateTable('commerce_runtimes')
      .set(runAfterSteps({}, last))
      .where('runtime_id', '=', runtimeId)
      .execute();
    return [];
  }
  // The transitions' foreign key is checked at the statement's end, when the proposals are there.
  return db
    .with('step', upsert)
    .with('run', (q) =>
      q.updateTable('commerce_runtimes').set(runAfterSteps({}, last)).where('runtime_id', '=', runtimeId).returning('runtime_id'),
    )
    .with('transition', (q) => q.insertInto('proposal_transitions').values(transitions))
    .insertInto('proposals')
    .values(proposals)
    .returningAll()
    .execute();
}

export async function finishRuntime(
  db: Db,
  f: { runtimeId: string; stage: string; auditStatus: string; proposalId?: string | null },
): Promise<void> {
  await db
    .updateTable('commerce_runtimes')
    .set({
      stage: f.stage,
      ...(f.proposalId ? { proposal_id: f.proposalId } : {}),
      runtime_trace: sql`jsonb_set(runtime_trace, '{audit_status}', to_jsonb(${f.auditStatus}::text))`,
      finished_at: new Date(),
      updated_at: new Date(),
    })
    .where('runtime_id', '=', f.runtimeId)
    .execute();
}

export function stepView(s: RuntimeStepRow) {
  return {
    step_id: s.step_id,
    index: s.index,
    agent_id: s.agent_id,
    kind: s.kind,
    status: s.status,
    input_summary: s.input_summary,
    output_summary: s.output_summary,
    budget_consumed: s.budget_consumed,
    started_at: iso(s.started_at)!,
    finished_at: iso(s.finished_at),
    error: s.error,
  };
}

/** The full 2.9 runtime, read from the database with its linked records as their own GETs show them. */
export async function loadRuntime(db: Db, runtimeId: string, caller: Caller) {
  const r = await getRuntimeRow(db, runtimeId);
  // Another developer's run is not there for this caller (A2A tasks/get answers the same).
  if (!mayRead(caller, r.developer_id)) throw runtimeNotFound(runtimeId);
  const [steps, intent, proposal, session, token] = await Promise.all([
    db.selectFrom('commerce_runtime_steps').selectAll().where('runtime_id', '=', runtimeId).orderBy('index').execute(),
    r.intent_id ? getIntent(db, r.intent_id, SYSTEM) : null,
    r.proposal_id ? getProposal(db, r.proposal_id, SYSTEM) : null,
    r.match_session_id
      ? db.selectFrom('match_sessions').selectAll().where('match_session_id', '=', r.match_session_id).executeTakeFirst()
      : null,
    r.match_token_id ? getMatchToken(db, r.match_token_id, SYSTEM) : null,
  ]);
  const consumed = steps.reduce(
    (sum, s) => ({
      iterations: sum.iterations + s.budget_consumed.iterations,
      merchant_queries: sum.merchant_queries + s.budget_consumed.merchant_queries,
      proposal_versions: sum.proposal_versions + s.budget_consumed.proposal_versions,
    }),
    { iterations: 0, merchant_queries: 0, proposal_versions: 0 },
  );
  return {
    runtime_session: {
      runtime_id: r.runtime_id,
      entry_agent_id: r.entry_agent_id,
      mode: r.mode,
      stage: r.stage,
      started_at: iso(r.started_at)!,
      finished_at: iso(r.finished_at),
      workflow_id: workflowIds.runtime(r.runtime_id),
    },
    intent: intent ? intentView(intent) : null,
    proposal: proposal ? proposalView(proposal) : null,
    match_session: session ? matchSessionView(session) : null,
    match_token: token ? matchTokenView(token, caller) : null,
    agent_steps: steps.map(stepView),
    commerce_budget: r.commerce_budget,
    commerce_memory_refs: r.commerce_memory_refs,
    skill_refs: r.skill_refs,
    runtime_trace: {
      loop: r.runtime_trace.loop,
      current_step: r.runtime_trace.current_step,
      audit_status: r.runtime_trace.audit_status,
      consumed,
    },
  };
}

export const newRuntimeId = () => newId('rt');
