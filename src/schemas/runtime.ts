import { z } from 'zod';
import { atLeastOneMinorUnit, isoDateTime, text } from './common';
import { Intent, IntentCreateBody } from './intents';
import { oneProductRef, Proposal, ProposalCreateBody } from './proposals';
import { MatchSession, MatchToken } from './match';

/**
 * Commerce runtime (docs/RUNTIME.md). AgentStep,
 * CommerceMemoryRef and runtime_session open; they are defined here.
 */

const freeObject = z.record(z.string(), z.unknown());

/** Bounds of each budget member (docs/RUNTIME.md). */
export const BUDGET_LIMITS = { max_agent_iterations: 50, max_merchant_queries: 20, max_proposal_versions: 10 } as const;
export const BUDGET_DEFAULTS = {
  max_agent_iterations: 8,
  max_merchant_queries: 5,
  max_proposal_versions: 3,
  require_user_confirmation_before_payment: true,
} as const;

export const CommerceBudget = z
  .object({
    max_agent_iterations: z
      .number()
      .int()
      .positive()
      .max(BUDGET_LIMITS.max_agent_iterations)
      .default(BUDGET_DEFAULTS.max_agent_iterations)
      .meta({ description: 'AgentSteps the loop may run (1..50, default 8).' }),
    max_merchant_queries: z
      .number()
      .int()
      .positive()
      .max(BUDGET_LIMITS.max_merchant_queries)
      .default(BUDGET_DEFAULTS.max_merchant_queries)
      .meta({ description: 'Merchant agents the loop may call (1..20, default 5).' }),
    max_proposal_versions: z
      .number()
      .int()
      .positive()
      .max(BUDGET_LIMITS.max_proposal_versions)
      .default(BUDGET_DEFAULTS.max_proposal_versions)
      .meta({ description: 'Proposals (and revisions) the loop may collect (1..10, default 3).' }),
    require_user_confirmation_before_payment: z
      .boolean()
      .default(true)
      .meta({ description: 'true (default): stop at awaiting_user_confirmation with the match token; false: authorize payment too.' }),
  })
  .strict()
  .meta({ id: 'CommerceBudget' });
export type CommerceBudgetT = z.infer<typeof CommerceBudget>;

export const CommerceMemoryRef = z
  .object({
    ref_id: text(200),
    kind: text(100).meta({ description: 'e.g. preference, past_order, conversation, taste_profile.' }),
    uri: text(2048),
    summary: text(1000).optional(),
  })
  .strict()
  .meta({ id: 'CommerceMemoryRef', description: 'A pointer to memory the calling agent holds; the runtime records and echoes it.' });

export const RuntimeSessionInput = z
  .object({
    entry_agent_id: text(200).optional(),
    mode: z
      .enum(['autonomous', 'assisted'])
      .optional()
      .meta({ description: 'assisted (default) or autonomous; informational, the budget decides about payment.' }),
  })
  .strict();

/** A proposal shell: what the caller wants on the chosen proposal (its metadata is attached to it). */
export const ProposalShell = z
  .object({
    metadata: freeObject.optional(),
    offer_title: text(300).optional(),
    product_id: z.number().int().positive().max(2_147_483_647).optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'RuntimeProposalShell' });

export const RuntimeCreateBody = z
  .strictObject({
    intent: IntentCreateBody.meta({ description: 'A normal intent payload (raw_query required). Absent → 400 missing_intent.' }),
    commerce_budget: CommerceBudget.optional(),
    runtime_session: RuntimeSessionInput.optional(),
    commerce_memory_refs: z.array(CommerceMemoryRef).max(20).optional(),
    skill_refs: z.array(text(200)).max(20).optional(),
    proposal: ProposalShell.optional(),
  })
  .meta({ id: 'CommerceRuntimeRequest' });
export type RuntimeCreateInput = z.infer<typeof RuntimeCreateBody>;

export const BudgetConsumed = z
  .object({ iterations: z.number().int(), merchant_queries: z.number().int(), proposal_versions: z.number().int() })
  .meta({ id: 'BudgetConsumed' });

export const AGENT_STEP_KINDS = [
  'resolve_intent',
  'merchant_query',
  'catalog_query',
  'rank',
  'mint_token',
  'authorize_payment',
  'payment_voided',
] as const;

export const AgentStep = z
  .object({
    step_id: z.string(),
    index: z.number().int().meta({ description: '0-based position in the loop.' }),
    agent_id: z
      .string()
      .meta({ description: 'Who acted: the entry agent, a merchant id, gateway-catalog, gateway-matcher or gateway-reconciler.' }),
    kind: z.enum(AGENT_STEP_KINDS),
    status: z.enum(['succeeded', 'failed', 'timeout', 'skipped']),
    input_summary: z.string(),
    output_summary: z.string(),
    budget_consumed: BudgetConsumed,
    started_at: isoDateTime,
    finished_at: isoDateTime.nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'AgentStep', description: 'One iteration of the runtime loop, as audited.' });

export const RUNTIME_STAGES = [
  'queued',
  'resolving_intent',
  'querying_merchants',
  'ranking',
  'minting_token',
  'awaiting_user_confirmation',
  'payment_authorized',
  'stopped',
  'failed',
] as const;

export const CommerceRuntime = z
  .object({
    runtime_session: z.object({
      runtime_id: z.string(),
      entry_agent_id: z.string(),
      mode: z.string(),
      stage: z.enum(RUNTIME_STAGES),
      started_at: isoDateTime,
      finished_at: isoDateTime.nullable(),
      workflow_id: z.string().meta({ description: 'The Temporal workflow, runtime-<runtime_id>.' }),
    }),
    intent: Intent.nullable(),
    proposal: Proposal.nullable(),
    match_session: MatchSession.nullable(),
    match_token: MatchToken.nullable(),
    agent_steps: z.array(AgentStep),
    commerce_budget: CommerceBudget,
    commerce_memory_refs: z.array(CommerceMemoryRef),
    skill_refs: z.array(z.string()),
    runtime_trace: z.object({
      loop: z.string().meta({ description: 'The loop that ran (its stages in order).' }),
      current_step: z.number().int().nullable().meta({ description: 'Index of the last AgentStep, null before the first.' }),
      audit_status: z.string().meta({ description: 'running, completed, budget_exhausted:<budget> or failed:<reason>.' }),
      consumed: BudgetConsumed,
    }),
  })
  .meta({ id: 'CommerceRuntime' });

export const RuntimeEnvelope = z.object({ runtime: CommerceRuntime }).meta({ id: 'CommerceRuntimeEnvelope' });
export const RuntimeAccepted = z
  .object({ runtime_id: z.string(), status: z.literal('running'), status_url: z.string() })
  .meta({ id: 'CommerceRuntimeAccepted' });
export const RuntimeIdParams = z.object({ runtimeId: z.string().min(1).max(100) });
export const PreferHeader = z.string().optional();

/**
 * What a merchant agent answers to a runtime query (docs/RUNTIME.md, merchant query contract). A
 * merchant's answer is not a request to this API: members its proposals add beyond the members of
 * POST /v1/proposals are dropped (a plain object over the same members), where that route refuses them.
 */
export const MerchantQueryAnswer = z.object({
  proposals: z
    .array(
      z
        .object(ProposalCreateBody.shape)
        .omit({ merchant_agent_id: true, intent_id: true })
        // As POST /v1/proposals: a price below one minor unit of its currency is no offer, and
        // exactly one member names the product (here none at all breaks the contract too).
        .superRefine(atLeastOneMinorUnit('price'))
        .superRefine(oneProductRef(true)),
    )
    .max(10),
});
