import { sql } from 'kysely';
import type { Db } from '../db/connect';
import type { DiscrepancyKind, ReconciliationSummary } from '../schemas/reconciliation';
import { STAGING_TABLE_DDL, orderSourceByName } from '../supply/affiliate-orders-source';
import type { ReconciliationWindow } from '../supply/window';

/**
 * Platform-affiliate reconciliation (docs/RECONCILIATION.md): the orders a platform reports for a
 * window against what the gateway attributed. Everything is set-based SQL inside ONE transaction
 * over temporary tables, so a run over 100,000 orders is a handful of statements; discrepancy rows
 * of a run are replaced as a whole, so a retried activity leaves one consistent result.
 *
 * Join rules, in precedence order, for each order (its last listed row):
 *   checkout_id → agentic_checkouts (expected amount: the checkout total), else
 *   match_token_id → match_tokens (expected: the checkout total when the token has a confirmed
 *   checkout, else the token amount), else
 *   rec_id → rec_cards (a card carries no amount: matched on the reference alone).
 * A checkout and its match token are one purchase: the claim key of both is the token id.
 */

export const DISCREPANCY_KINDS = [
  'unmatched_platform_order',
  'unmatched_gateway_record',
  'amount_mismatch',
  'duplicate_order',
] as const satisfies readonly DiscrepancyKind[];
/** Discrepancy rows stored per kind and run; the counts in the summary are always exact. */
export const STORED_DISCREPANCIES_PER_KIND = 5000;

const num = (v: unknown) => Number(v ?? 0);

/**
 * Matches the source's orders of the window against the gateway and stores the run's discrepancy
 * rows. `progress` is called between statements (the activity heartbeats with it).
 */
export async function reconcileAffiliateOrders(
  db: Db,
  input: { runId: string; source: string; window: ReconciliationWindow },
  progress: (step: string) => void = () => {},
): Promise<ReconciliationSummary> {
  const start = new Date(input.window.start);
  const end = new Date(input.window.end);
  const limit = STORED_DISCREPANCIES_PER_KIND;
  return db.transaction().execute(async (trx) => {
    const run = async (step: string, q: { execute(db: Db): Promise<unknown> }) => {
      progress(step);
      await q.execute(trx);
    };
    await run('staging', STAGING_TABLE_DDL);
    progress('loading orders');
    await orderSourceByName(input.source).stage(trx, { start, end });
    await run('analyze', sql`analyze recon_orders`);

    // Each order once, by its last listed row (a later refund row supersedes the completed one),
    // resolved to the gateway record it names, and ranked among the orders claiming that record.
    await run(
      'resolving',
      sql`create temporary table recon_resolved on commit drop as
        with effective as (
          select distinct on (order_id) * from recon_orders order by order_id, row_no desc
        ), resolved as (
          select e.*,
            coalesce(c.match_token_id, t.match_token_id) as claim_key,
            case when coalesce(c.checkout_id, cc.checkout_id) is not null then 'checkout'
                 when t.match_token_id is not null then 'match_token'
                 when rc.rec_id is not null then 'rec_card' end as ref_type,
            coalesce(c.checkout_id, cc.checkout_id, t.match_token_id, rc.rec_id) as ref_id,
            coalesce(c.amount_cents, cc.amount_cents, t.amount_cents) as expected_cents,
            coalesce(c.currency, cc.currency, t.currency) as expected_currency
          from effective e
          left join agentic_checkouts c on c.checkout_id = e.checkout_id
          left join match_tokens t on t.match_token_id = coalesce(c.match_token_id, e.match_token_id)
          left join agentic_checkouts cc on c.checkout_id is null and cc.match_token_id = t.match_token_id and cc.status = 'confirmed'
          left join rec_cards rc on rc.rec_id = e.rec_id
        ), ranked as (
          select r.*,
            case when claim_key is not null then row_number() over (partition by claim_key order by ordered_at, order_id) end as claim_rank,
            case when claim_key is not null then first_value(order_id) over (partition by claim_key order by ordered_at, order_id) end as first_claim
          from resolved r
        )
        select ranked.*,
          case when ref_id is null then 'unmatched_platform_order'
               when claim_rank > 1 then 'duplicate_claim'
               when status = 'completed' and expected_cents is not null
                    and (amount_cents <> expected_cents or upper(currency) <> upper(expected_currency)) then 'amount_mismatch'
               else 'matched' end as outcome
        from ranked`,
    );
    await run('analyze', sql`analyze recon_resolved`);

    // What the gateway expects an order for in the window: confirmed checkouts, and paid tokens
    // without one. `claimed` when any order of the window names it (by checkout or token).
    await run(
      'gateway records',
      sql`create temporary table recon_gateway on commit drop as
        with expected as (
          select c.match_token_id as claim_key, 'checkout' as ref_type, c.checkout_id as ref_id, c.amount_cents, c.currency,
                 c.confirmed_at as at, c.merchant_id
          from agentic_checkouts c
          where c.status = 'confirmed' and c.confirmed_at >= ${start} and c.confirmed_at < ${end}
          union all
          select t.match_token_id, 'match_token', t.match_token_id, t.amount_cents, t.currency,
                 coalesce(pa.authorized_at, t.accepted_at, t.updated_at), p.merchant_agent_id
          from match_tokens t
          left join payment_authorizations pa on pa.match_token_id = t.match_token_id and pa.status = 'authorized'
          left join proposals p on p.proposal_id = t.proposal_id
          where t.acceptance_state in ('payment_authorized', 'consumed') and t.updated_at >= ${start}
            and coalesce(pa.authorized_at, t.accepted_at, t.updated_at) >= ${start}
            and coalesce(pa.authorized_at, t.accepted_at, t.updated_at) < ${end}
            and not exists (select 1 from agentic_checkouts c where c.match_token_id = t.match_token_id and c.status = 'confirmed')
        )
        select x.*, exists (select 1 from recon_resolved r where r.claim_key = x.claim_key) as claimed from expected x`,
    );

    progress('storing discrepancies');
    await trx.deleteFrom('reconciliation_discrepancies').where('run_id', '=', input.runId).execute();
    const runId = input.runId;
    await run(
      'unmatched platform orders',
      sql`insert into reconciliation_discrepancies (run_id, kind, order_id, ref_type, ref_id, expected_amount_cents, actual_amount_cents, currency, detail)
        select ${runId}, 'unmatched_platform_order', order_id, null, null, null, amount_cents, currency,
          jsonb_build_object('reason', case when coalesce(checkout_id, match_token_id, rec_id) is null then 'no_reference' else 'unknown_reference' end,
            'named', jsonb_strip_nulls(jsonb_build_object('checkout_id', checkout_id, 'match_token_id', match_token_id, 'rec_id', rec_id)),
            'status', status, 'ordered_at', ordered_at, 'merchant_id', merchant_id, 'line', line, 'import_batch', import_batch)
        from recon_resolved where outcome = 'unmatched_platform_order' order by ordered_at, order_id limit ${limit}`,
    );
    await run(
      'amount mismatches',
      sql`insert into reconciliation_discrepancies (run_id, kind, order_id, ref_type, ref_id, expected_amount_cents, actual_amount_cents, currency, detail)
        select ${runId}, 'amount_mismatch', order_id, ref_type, ref_id, expected_cents, amount_cents, currency,
          jsonb_build_object('expected_currency', expected_currency, 'actual_currency', currency, 'ordered_at', ordered_at, 'line', line, 'import_batch', import_batch)
        from recon_resolved where outcome = 'amount_mismatch' order by ordered_at, order_id limit ${limit}`,
    );
    await run(
      'unmatched gateway records',
      sql`insert into reconciliation_discrepancies (run_id, kind, order_id, ref_type, ref_id, expected_amount_cents, actual_amount_cents, currency, detail)
        select ${runId}, 'unmatched_gateway_record', null, ref_type, ref_id, amount_cents, null, currency,
          jsonb_build_object('at', at, 'merchant_id', merchant_id, 'match_token_id', claim_key)
        from recon_gateway where not claimed order by at, ref_id limit ${limit}`,
    );
    // Two ways to count an order twice: the report lists it again (same order, same status), or
    // another order claims a checkout / token an earlier order already claimed.
    await run(
      'duplicates',
      sql`insert into reconciliation_discrepancies (run_id, kind, order_id, ref_type, ref_id, expected_amount_cents, actual_amount_cents, currency, detail)
        select ${runId}, 'duplicate_order', order_id, ref_type, ref_id, expected_cents, amount_cents, currency, detail from (
          select order_id, 'order' as ref_type, null as ref_id, null::bigint as expected_cents, min(amount_cents) as amount_cents, min(currency) as currency,
            jsonb_build_object('reason', 'listed_more_than_once', 'status', status, 'rows', count(*),
              'lines', array_agg(line order by row_no), 'import_batches', array_agg(distinct import_batch)) as detail,
            min(ordered_at) as ordered_at
          from recon_orders group by order_id, status having count(*) > 1
          union all
          select order_id, ref_type, ref_id, expected_cents, amount_cents, currency,
            jsonb_build_object('reason', 'reference_already_claimed', 'first_order_id', first_claim, 'match_token_id', claim_key,
              'ordered_at', ordered_at, 'line', line, 'import_batch', import_batch),
            ordered_at
          from recon_resolved where outcome = 'duplicate_claim'
        ) d order by ordered_at, order_id limit ${limit}`,
    );

    progress('summarizing');
    const counts = (
      await sql<Record<string, unknown>>`
        select
          (select count(*) from recon_orders) as rows,
          (select count(*) from (select 1 from recon_orders group by order_id, status having count(*) > 1) x) as listed_twice,
          count(*) as distinct_orders,
          count(*) filter (where status = 'completed') as completed,
          count(*) filter (where status = 'refunded') as refunded,
          count(*) filter (where status = 'cancelled') as cancelled,
          count(*) filter (where outcome = 'matched') as matched,
          count(*) filter (where outcome = 'amount_mismatch') as amount_mismatch,
          count(*) filter (where outcome = 'unmatched_platform_order') as unmatched_platform_order,
          count(*) filter (where outcome = 'duplicate_claim') as duplicate_claim,
          count(*) filter (where outcome = 'matched' and ref_type = 'checkout') as by_checkout,
          count(*) filter (where outcome = 'matched' and ref_type = 'match_token') as by_token,
          count(*) filter (where outcome = 'matched' and ref_type = 'rec_card') as by_rec,
          (select count(*) from recon_gateway) as gateway_expected,
          (select count(*) from recon_gateway where claimed) as gateway_claimed
        from recon_resolved`.execute(trx)
    ).rows[0]!;
    const amounts = (
      await sql<Record<string, unknown>>`
        select currency,
          sum(platform) as platform, sum(matched) as matched, sum(commission) as commission, sum(refunded) as refunded,
          sum(mismatch_expected) as mismatch_expected, sum(mismatch_actual) as mismatch_actual,
          sum(unmatched_platform) as unmatched_platform, sum(unmatched_gateway) as unmatched_gateway
        from (
          select upper(currency) as currency,
            case when status = 'completed' then amount_cents end as platform,
            case when status = 'completed' and outcome = 'matched' then amount_cents end as matched,
            case when status = 'completed' and outcome in ('matched', 'amount_mismatch') then commission_cents end as commission,
            case when status <> 'completed' then amount_cents end as refunded,
            -- A currency mismatch has no meaningful difference in one currency: only the counts show it.
            case when outcome = 'amount_mismatch' and upper(expected_currency) = upper(currency) then expected_cents end as mismatch_expected,
            case when outcome = 'amount_mismatch' and upper(expected_currency) = upper(currency) then amount_cents end as mismatch_actual,
            case when outcome = 'unmatched_platform_order' and status = 'completed' then amount_cents end as unmatched_platform,
            null::bigint as unmatched_gateway
          from recon_resolved
          union all
          select upper(currency), null, null, null, null, null, null, null, amount_cents from recon_gateway where not claimed
        ) a group by currency order by currency`.execute(trx)
    ).rows;
    const stored = (
      await trx
        .selectFrom('reconciliation_discrepancies')
        .select(['kind', (eb) => eb.fn.countAll<string>().as('n')])
        .where('run_id', '=', runId)
        .groupBy('kind')
        .execute()
    ).reduce((acc, r) => ({ ...acc, [r.kind]: Number(r.n) }), {} as Record<string, number>);

    const gatewayExpected = num(counts.gateway_expected);
    const gatewayClaimed = num(counts.gateway_claimed);
    const discrepancies: Record<DiscrepancyKind, number> = {
      unmatched_platform_order: num(counts.unmatched_platform_order),
      unmatched_gateway_record: gatewayExpected - gatewayClaimed,
      amount_mismatch: num(counts.amount_mismatch),
      duplicate_order: num(counts.duplicate_claim) + num(counts.listed_twice),
    };
    return {
      orders: {
        rows: num(counts.rows),
        distinct: num(counts.distinct_orders),
        completed: num(counts.completed),
        refunded: num(counts.refunded),
        cancelled: num(counts.cancelled),
      },
      outcomes: {
        matched: num(counts.matched),
        amount_mismatch: num(counts.amount_mismatch),
        unmatched_platform_order: num(counts.unmatched_platform_order),
        duplicate_claim: num(counts.duplicate_claim),
      },
      matched_by: { checkout: num(counts.by_checkout), match_token: num(counts.by_token), rec_card: num(counts.by_rec) },
      gateway_records: { expected: gatewayExpected, claimed: gatewayClaimed, unclaimed: gatewayExpected - gatewayClaimed },
      discrepancies,
      stored: Object.fromEntries(DISCREPANCY_KINDS.map((k) => [k, stored[k] ?? 0])) as Record<DiscrepancyKind, number>,
      stored_limit_per_kind: limit,
      amounts: amounts.map((a) => ({
        currency: String(a.currency),
        platform_order_cents: num(a.platform),
        matched_cents: num(a.matched),
        commission_cents: num(a.commission),
        refunded_or_cancelled_cents: num(a.refunded),
        mismatch_expected_cents: num(a.mismatch_expected),
        mismatch_actual_cents: num(a.mismatch_actual),
        unmatched_platform_cents: num(a.unmatched_platform),
        unmatched_gateway_cents: num(a.unmatched_gateway),
      })),
    };
  });
}
