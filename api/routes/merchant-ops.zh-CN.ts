/** zh-CN translations of the merchant-ops route texts (merged into openapi-locales). */
export const merchantOpsZhCN: Record<string, string> = {
  // routes
  'Merchant SLA metrics': '商家 SLA 指标',
  'Proposal response latency after Intent.Surge delivery, delivery success rate, proposal acceptance, on-time fulfillment and decision feedback counts over the last `days` days, each with its sample size n (a metric with n = 0 is null). Definitions in docs/SUPPLY-OPS.md. Operators (supply key) read any merchant; with an API key the call also needs the X-Merchant-Token of merchantId: a merchant reads its own SLA only.':
    '最近 `days` 天内的指标：Intent.Surge 投递后的提案响应时延、投递成功率、提案接受率、按时履约率以及决策反馈计数，每项附带样本量 n（n = 0 的指标为 null）。定义见 docs/SUPPLY-OPS.md。运营方（供给密钥）可读取任意商家；使用 API 密钥时还需提供 merchantId 对应的 X-Merchant-Token：商家只能读取自己的 SLA。',
  'X-Merchant-Token is not the registration token of merchantId.': 'X-Merchant-Token 不是 merchantId 的注册令牌。',
  'SLA metrics with sample sizes.': '带样本量的 SLA 指标。',
  'No merchant agent with this id is registered.': '未注册该 id 的商家智能体。',
  'Recompute merchant reputation': '重新计算商家信誉',
  'Recomputes a 0..100 score from the SLA metrics, decision events and the trust scores of the merchant’s proposals over the last `days` days, stores it as a new snapshot and returns it with its basis (every component with value, n, weight and points), the earlier snapshots and the change against the previous one.':
    '根据最近 `days` 天内的 SLA 指标、决策事件以及该商家提案的信任分重新计算 0..100 的分数，存为新的快照，并返回该快照及其依据（每个组成项的取值、n、权重和得分）、此前的快照以及与上一次相比的变化。',
  'The new snapshot, its history and trend.': '新的快照及其历史与趋势。',
  // query
  'Look-back window in days, 1..90, default 30.': '回看窗口天数，1..90，默认 30。',
  // SLA fields
  'Sample size: how many observations the metric is computed from.': '样本量：计算该指标所用的观测数。',
  '0..1 to 4 decimals; null when n = 0.': '0..1，保留 4 位小数；n = 0 时为 null。',
  'Rows created after from and at or before to count.': '计入创建时间晚于 from 且不晚于 to 的记录。',
  'Delivered dispatches the merchant answered with a proposal (latency samples).': '商家以提案作出回应的已送达派发（时延样本）。',
  'Intent.Surge deliveries created in the window and delivered.': '窗口内创建且已送达的 Intent.Surge 投递。',
  'Delivered dispatches without any proposal from the merchant for that intent.': '商家未针对该意图提交任何提案的已送达派发。',
  'Seconds from delivered_at to the first proposal (linear-interpolated percentiles); null when n = 0.':
    '从 delivered_at 到首个提案的秒数（分位数采用线性插值）；n = 0 时为 null。',
  'workflow_context.proposal_response_sla_seconds, or the 600 s respond_by of the dispatch when none is declared.':
    'workflow_context.proposal_response_sla_seconds；未声明时取派发的 respond_by 默认值 600 秒。',
  'Answered within sla_seconds / dispatched (unanswered ones count as misses); null when nothing was dispatched.':
    '在 sla_seconds 内回应的数量 / 已派发数量（未回应的计为未达标）；没有派发时为 null。',
  'delivered + dlq; deliveries still pending or inflight are left out.': 'delivered + dlq；仍处于 pending 或 inflight 的投递不计入。',
  'Delivered on the first attempt without a replay / n.': '首次尝试即送达且未重放的数量 / n。',
  'The merchant’s proposals created in the window.': '该商家在窗口内创建的提案。',
  'Of those, proposal_state accepted or settled, or a match token accepted, payment_authorized or consumed.':
    '其中 proposal_state 为 accepted 或 settled，或其匹配令牌达到 accepted、payment_authorized 或 consumed 的数量。',
  'fulfilled + late_delivery decision events.': 'fulfilled + late_delivery 决策事件数。',
  'Decision events naming this merchant in the window, per event_type.': '窗口内指向该商家的决策事件，按 event_type 计数。',
  // reputation fields
  '0..1: the observed value, or the neutral prior when n = 0.': '0..1：观测值；n = 0 时取中性先验值。',
  'weight × value, to 2 decimals.': 'weight × value，保留 2 位小数。',
  'True when the component had no samples and took the neutral prior.': '该组成项没有样本、采用中性先验值时为 true。',
  '0..100: round(sum of weight × value over the components).': '0..100：round(各组成项 weight × value 之和)。',
  'Earlier snapshots, newest first, up to 10.': '此前的快照，最新的在前，最多 10 条。',
  'score − previous_score.': 'score − previous_score。',
  'Change against the previous snapshot; null for the first one.': '与上一次快照相比的变化；首个快照为 null。',
};
