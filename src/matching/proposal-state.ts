import type { ProposalState } from '../db/schema-matching';
import { AppError } from '../errors';

/**
 * The proposal lifecycle (docs/CONTRACT.md#states): draft → quoted → pending_confirmation (a match token names
 * it) → accepted (payment authorized or checkout confirmed) → settled (merchant handoff receipt);
 * accepted → pending_confirmation when a checkout voids its payment authorization (the handoff failed
 * for good), so the match token may back another checkout; every state that is not final may expire when valid_until passes. Anything else is a 409.
 */

export const PROPOSAL_STATES: ProposalState[] = ['draft', 'quoted', 'pending_confirmation', 'accepted', 'settled', 'expired'];

export const PROPOSAL_TRANSITIONS: Record<ProposalState, ProposalState[]> = {
  draft: ['quoted', 'expired'],
  quoted: ['pending_confirmation', 'expired'],
  pending_confirmation: ['accepted', 'expired'],
  accepted: ['pending_confirmation', 'settled', 'expired'],
  settled: [],
  expired: [],
};

export const isFinalProposalState = (s: ProposalState) => PROPOSAL_TRANSITIONS[s].length === 0;

export function canTransition(from: ProposalState, to: ProposalState): boolean {
  return PROPOSAL_TRANSITIONS[from].includes(to);
}

export function assertTransition(proposalId: string, from: ProposalState, to: ProposalState): void {
  if (!canTransition(from, to)) {
    throw new AppError(409, 'illegal_proposal_transition', `Proposal ${proposalId} cannot go from ${from} to ${to}.`, {
      proposal_id: proposalId,
      proposal_state: from,
      allowed: PROPOSAL_TRANSITIONS[from],
    });
  }
}
