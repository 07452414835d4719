import { z } from 'zod';
import { atLeastOneMinorUnit, countryCode, isoDateTime, letterCode, money, text } from './common';

/**
 * Intent (docs/MATCHING.md). The nested objects are typed here; each
 * keeps unknown members (`catchall`) because agents attach their own context and replay needs it
 * verbatim, except budget_range, whose members drive ranking and must be exact.
 */

const freeObject = z.record(z.string(), z.unknown());
export const currencyCode = letterCode(3, 'ISO 4217 code, e.g. USD');

export const BudgetRange = z
  .object({
    min: z.number().min(0).max(1e7).optional(),
    max: money(1e7, 'The hard ceiling, in major units.').optional(),
    currency: currencyCode.default('USD'),
  })
  .strict()
  .refine((b) => b.min === undefined || b.max === undefined || b.min <= b.max, { message: 'min must not exceed max', path: ['min'] })
  .superRefine(atLeastOneMinorUnit('max'))
  .meta({
    id: 'BudgetRange',
    description:
      'Spend range in major units; `max` is the hard ceiling used by ranking. `min` must not exceed `max` (400 invalid_payload; a rule across two members, which the schema does not state).',
  });

export const TimeWindow = z
  .object({
    deadline: z.iso.datetime({ offset: true }).optional().meta({ description: 'Latest acceptable delivery time.' }),
    earliest: z.iso.datetime({ offset: true }).optional(),
    urgency: z.enum(['flexible', 'soon', 'urgent']).optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'TimeWindow' });

export const ExperienceContext = z
  .object({
    scene: text().optional(),
    self_context: text().optional(),
    desired_feeling: text().optional(),
    visual_constraints: z.array(text(200)).max(20).optional(),
    confirmation_goal: text().optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'ExperienceContext' });

export const Workflow = z
  .object({
    skill: text(200).optional(),
    mcp_tool: text(200).optional(),
    a2a_task_id: text(200).optional(),
    runtime_id: text(200).optional(),
    replay_of: text(200).optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'WorkflowRef', description: 'Skill / MCP / A2A execution context, kept for replay and governance.' });

export const AttributionLink = z
  .object({
    agent_id: text(200).optional(),
    role: text(100).optional(),
    channel: text(100).optional(),
    ref: text(500).optional(),
    at: z.iso.datetime({ offset: true }).optional(),
  })
  .catchall(z.unknown());

export const AssetRef = z
  .object({ type: text(100), url: z.string().url().max(2048).optional(), ref: text(500).optional() })
  .catchall(z.unknown());

export const IntentCreateBody = z
  .strictObject({
    raw_query: text(2000),
    intent_tags: z.array(text(64)).max(50).optional(),
    target_audience: text(200).optional(),
    budget_range: BudgetRange.optional(),
    region: countryCode.optional(),
    constraints: z.array(text(500)).max(50).optional(),
    source_channel: text(100).optional(),
    metadata: freeObject.optional(),
    time_window: TimeWindow.optional(),
    asset_refs: z.array(AssetRef).max(50).optional(),
    attribution_chain: z.array(AttributionLink).max(50).optional(),
    workflow: Workflow.optional(),
    experience_context: ExperienceContext.optional(),
  })
  .meta({ id: 'IntentCreateRequest' });
export type IntentCreateInput = z.infer<typeof IntentCreateBody>;

export const Intent = z
  .object({
    intent_id: z.string(),
    raw_query: z.string(),
    normalized_query: z.string().nullable(),
    intent_tags: z.array(z.string()),
    target_audience: z.string().nullable(),
    budget_range: z.object({ min: z.number().nullable(), max: z.number().nullable(), currency: z.string() }).nullable(),
    region: z.string().nullable(),
    constraints: z.array(z.string()),
    source_channel: z.string().nullable(),
    resolution_source: z.string().nullable(),
    resolution_summary: z.string().nullable(),
    metadata: freeObject,
    created_at: isoDateTime.nullable(),
    updated_at: isoDateTime.nullable(),
    time_window: freeObject.nullable(),
    asset_refs: z.array(freeObject),
    attribution_chain: z.array(freeObject),
    workflow: freeObject,
    experience_context: freeObject,
  })
  .meta({ id: 'Intent' });

export const IntentEnvelope = z.object({ intent: Intent }).meta({ id: 'IntentEnvelope' });
export const IntentIdParams = z.object({ intentId: z.string().min(1).max(100) });
