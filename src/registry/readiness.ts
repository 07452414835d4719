import type { MerchantRow } from '../db/schema';

/**
 * Agent readiness (docs/REGISTRIES.md): four checks of 25 points. When several are missing, `next_upgrade`
 * names the first missing one in CHECK_ORDER, ordered by what each unlocks for a shopper agent: a
 * committed proposal is what makes a match token worth paying against; attribution is what gets
 * the merchant paid for it; workflow context lets intents be routed to it; trust evidence ranks it.
 */

type Check = { passed: boolean; points: number; max_points: number; reason: string };
export type CheckName = 'committed_proposal_contract' | 'match_token_attribution' | 'workflow_context' | 'trust_evidence_policy';

const POINTS = 25;
export const CHECK_ORDER: CheckName[] = [
  'committed_proposal_contract',
  'match_token_attribution',
  'workflow_context',
  'trust_evidence_policy',
];

const UPGRADES: Record<CheckName, string> = {
  committed_proposal_contract:
    'Set agent_ready_profile.proposal_contract to "committed" so proposals are binding quotes a match token can authorize payment against.',
  match_token_attribution:
    'Set agent_ready_profile.attribution_mode to "match_token" so orders are attributed (and billed) through signed match tokens.',
  workflow_context:
    'Fill workflow_context (origin_workflow, accepted_intent_shapes, proposal_response_sla_seconds) so intents that fit your workflow are routed to you.',
  trust_evidence_policy:
    'Declare trust_evidence_policy (accepted_sources, contradiction_handling) so community proof can back your proposals.',
};

function check(passed: boolean, ok: string, missing: string): Check {
  return { passed, points: passed ? POINTS : 0, max_points: POINTS, reason: passed ? ok : missing };
}

export function assessReadiness(m: MerchantRow) {
  const wc = m.workflow_context;
  const tp = m.trust_evidence_policy;
  const rp = m.agent_ready_profile;
  const checks: Record<CheckName, Check> = {
    workflow_context: check(
      Boolean(wc.origin_workflow && wc.accepted_intent_shapes?.length && wc.proposal_response_sla_seconds),
      `Declares origin workflow '${wc.origin_workflow}', ${wc.accepted_intent_shapes?.length ?? 0} intent shape(s) and a ${wc.proposal_response_sla_seconds}s proposal SLA.`,
      'workflow_context needs origin_workflow, accepted_intent_shapes and proposal_response_sla_seconds.',
    ),
    committed_proposal_contract: check(
      rp.proposal_contract === 'committed',
      'Proposals are committed quotes until valid_until.',
      `agent_ready_profile.proposal_contract is ${rp.proposal_contract ? `"${rp.proposal_contract}"` : 'not set'}; it must be "committed".`,
    ),
    trust_evidence_policy: check(
      Boolean(tp.accepted_sources?.length && tp.contradiction_handling),
      `Accepts evidence from ${tp.accepted_sources?.join(', ')}; contradictions: ${tp.contradiction_handling}.`,
      'trust_evidence_policy needs accepted_sources and contradiction_handling.',
    ),
    match_token_attribution: check(
      rp.attribution_mode === 'match_token',
      'Orders are attributed through signed match tokens.',
      `agent_ready_profile.attribution_mode is ${rp.attribution_mode ? `"${rp.attribution_mode}"` : 'not set'}; it must be "match_token".`,
    ),
  };
  const score = Object.values(checks).reduce((sum, c) => sum + c.points, 0);
  const missing = CHECK_ORDER.filter((name) => !checks[name].passed);
  const passedCount = 4 - missing.length;
  return {
    kind: 'merchant_agent_readiness' as const,
    merchant_id: m.merchant_id,
    score,
    summary: {
      ready_for_embedded_workflows: missing.length === 0,
      insight:
        missing.length === 0
          ? 'All four checks pass: shopper agents can embed this merchant in their workflows end to end.'
          : `${passedCount} of 4 checks pass; missing: ${missing.join(', ')}.`,
      next_upgrade: missing.length === 0 ? 'none' : `${missing[0]}: ${UPGRADES[missing[0]!]}`,
    },
    checks,
  };
}
