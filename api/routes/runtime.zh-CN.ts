/** zh-CN translations of the commerce runtime route texts (merged into openapi-locales). */
export const runtimeZhCN: Record<string, string> = {
  // routes
  'Run the commerce runtime': '运行商务运行时',
  'Runs an auditable agent loop (docs/RUNTIME.md): resolve the intent, query the subscribed merchant agents (the catalog answers when none does), rank the proposals, mint the match token and, when the budget does not require the user to confirm, authorize payment. Every iteration is an AgentStep; commerce_budget bounds the loop. The caller waits up to 20 s (`Prefer: wait=N`, 0..60); past it the answer is 202 with the status URL.':
    '运行一个可审计的智能体循环（docs/RUNTIME.md）：解析意图，询问订阅的商家智能体（无商家应答时由目录应答），对提案排序，签发匹配令牌；当预算不要求用户确认时还会授权支付。每次迭代都是一个 AgentStep；commerce_budget 限定循环。调用方最多等待 20 秒（`Prefer: wait=N`，0..60）；超时则返回 202 及状态 URL。',
  'The finished runtime with its linked intent, proposal, match session and match token.': '已完成的运行时，附带关联的意图、提案、匹配会话和匹配令牌。',
  'Still running; poll status_url (also in Location).': '仍在运行；请轮询 status_url（也在 Location 头中）。',
  'Temporal is not reachable.': '无法连接 Temporal。',
  'Get a commerce runtime': '获取商务运行时',
  'The runtime as stored: while it runs, the steps so far (runtime_trace.audit_status `running`); then the final state.':
    '已存储的运行时：运行中时为目前的步骤（runtime_trace.audit_status 为 `running`）；结束后为最终状态。',
  'The runtime.': '运行时。',
  'No runtime with this id.': '不存在该 id 的运行时。',
  // fields
  'AgentSteps the loop may run (1..50, default 8).': '循环可运行的 AgentStep 数（1..50，默认 8）。',
  'Merchant agents the loop may call (1..20, default 5).': '循环可调用的商家智能体数（1..20，默认 5）。',
  'Proposals (and revisions) the loop may collect (1..10, default 3).': '循环可收集的提案（及修订）数（1..10，默认 3）。',
  'true (default): stop at awaiting_user_confirmation with the match token; false: authorize payment too.':
    'true（默认）：在 awaiting_user_confirmation 处停止并返回匹配令牌；false：同时授权支付。',
  'e.g. preference, past_order, conversation, taste_profile.': '例如 preference、past_order、conversation、taste_profile。',
  'A pointer to memory the calling agent holds; the runtime records and echoes it.': '指向调用方智能体所持记忆的引用；运行时记录并原样返回。',
  'assisted (default) or autonomous; informational, the budget decides about payment.': 'assisted（默认）或 autonomous；仅供参考，是否支付由预算决定。',
  'A normal intent payload (raw_query required). Absent → 400 missing_intent.': '普通的意图请求体（需要 raw_query）。缺失时返回 400 missing_intent。',
  '0-based position in the loop.': '在循环中的位置（从 0 开始）。',
  'Who acted: the entry agent, a merchant id, gateway-catalog, gateway-matcher or gateway-reconciler.': '执行者：入口智能体、商家 id、gateway-catalog、gateway-matcher 或 gateway-reconciler。',
  'One iteration of the runtime loop, as audited.': '运行时循环的一次迭代（审计记录）。',
  'The Temporal workflow, runtime-<runtime_id>.': '对应的 Temporal 工作流：runtime-<runtime_id>。',
  'The loop that ran (its stages in order).': '所运行的循环（按顺序列出各阶段）。',
  'Index of the last AgentStep, null before the first.': '最近一个 AgentStep 的序号；第一个步骤之前为 null。',
  'running, completed, budget_exhausted:<budget> or failed:<reason>.': 'running、completed、budget_exhausted:<预算名> 或 failed:<原因>。',
};
