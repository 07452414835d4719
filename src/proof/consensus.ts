import { sql, type RawBuilder } from 'kysely';
import type { EvidenceClaim, Stance } from '../db/schema-proof';
import type { AttributeConsensusT, CommunityProofGroupT, ContradictionT } from '../schemas/proof';

/**
 * Consensus and contradictions of a group of community evidence (docs/PROOF.md).
 *
 * Weight of a record: 1 + log10(1 + upvotes), upvotes below zero counting as zero. Each order of
 * magnitude of upvotes adds one vote, so a viral post counts more than a quiet comment without
 * outvoting a whole thread. Every claim of a record carries the record's weight.
 *
 * Per attribute, P and N are the weights of positive and negative claims; neutral claims take no
 * side and are left out. The group's score is Σ|P − N| / Σ(P + N) over its attributes: 1 when every
 * attribute is unanimous, 0 when every attribute is split evenly, null when nothing takes a side.
 * Agreement is measured per attribute because "great battery" and "poor fit" do not disagree.
 */

export const evidenceWeight = (upvotes: number) => 1 + Math.log10(1 + Math.max(0, upvotes));

/** evidenceWeight in SQL, for ranking groups in the database; keep the two identical. */
export const evidenceWeightSql = (upvotes: RawBuilder<unknown>) => sql<number>`(1 + log(1 + greatest(${upvotes}, 0)::float8))`;

export interface WeighedEvidence {
  evidence_id: string;
  upvotes: number;
  claims: EvidenceClaim[];
}

type Tally = Record<Stance, { claims: number; weight: number; ids: string[] }>;

const round3 = (n: number) => Math.round(n * 1000) / 1000;

export function summarize(evidence: WeighedEvidence[]): Pick<CommunityProofGroupT, 'consensus' | 'attributes' | 'contradictions'> {
  const tallies = new Map<string, Tally>();
  const sided = new Set<string>();
  let claimCount = 0;
  for (const e of evidence) {
    const weight = evidenceWeight(e.upvotes);
    for (const c of e.claims) {
      let t = tallies.get(c.attribute);
      if (!t)
        tallies.set(
          c.attribute,
          (t = {
            positive: { claims: 0, weight: 0, ids: [] },
            negative: { claims: 0, weight: 0, ids: [] },
            neutral: { claims: 0, weight: 0, ids: [] },
          }),
        );
      const side = t[c.stance];
      side.claims++;
      side.weight += weight;
      if (!side.ids.includes(e.evidence_id)) side.ids.push(e.evidence_id);
      if (c.stance !== 'neutral') {
        claimCount++;
        sided.add(e.evidence_id);
      }
    }
  }

  let net = 0;
  let total = 0;
  const attributes: AttributeConsensusT[] = [];
  const contradictions: ContradictionT[] = [];
  for (const [attribute, t] of tallies) {
    const p = t.positive.weight;
    const n = t.negative.weight;
    net += Math.abs(p - n);
    total += p + n;
    attributes.push({
      attribute,
      positive: { claims: t.positive.claims, weight: round3(p) },
      negative: { claims: t.negative.claims, weight: round3(n) },
      neutral: { claims: t.neutral.claims, weight: round3(t.neutral.weight) },
      agreement: p + n > 0 ? round3(Math.abs(p - n) / (p + n)) : null,
      leaning: p > n ? 'positive' : n > p ? 'negative' : p > 0 ? 'split' : 'neutral',
    });
    if (t.positive.claims && t.negative.claims)
      contradictions.push({ attribute, positive_evidence_ids: t.positive.ids, negative_evidence_ids: t.negative.ids });
  }
  // Most discussed attributes first.
  const weightOf = (a: AttributeConsensusT) => a.positive.weight + a.negative.weight + a.neutral.weight;
  attributes.sort((a, b) => weightOf(b) - weightOf(a) || a.attribute.localeCompare(b.attribute));
  contradictions.sort((a, b) => a.attribute.localeCompare(b.attribute));
  return {
    consensus: { score: total > 0 ? round3(net / total) : null, sample_size: sided.size, claim_count: claimCount },
    attributes,
    contradictions,
  };
}
