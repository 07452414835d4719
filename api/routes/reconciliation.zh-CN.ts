/** zh-CN translations of the reconciliation route texts (merged into openapi-locales). */
export const reconciliationZhCN: Record<string, string> = {
  // routes
  'Reconcile platform-affiliate orders': '对账平台联盟订单',
  'Runs the reconciliation workflow (docs/RECONCILIATION.md): the platform orders of the window (from the import table, or another registered source) are matched to checkouts, match tokens and rec_ids; the run reports matched orders, amount mismatches, unmatched orders on each side and duplicates, and is stored. The caller waits up to 60 s (`Prefer: wait=N`, 0..60); past it the answer is 202 with the status URL. The same workflow runs daily from the Temporal Schedule reconcile-daily. An operator power: supply key only (docs/TENANCY.md).':
    '运行对账工作流（docs/RECONCILIATION.md）：将时间窗口内的平台订单（来自导入表或其他已注册的来源）与结账、匹配令牌和 rec_id 进行匹配；本次运行报告已匹配订单、金额不符、双方各自未匹配的记录以及重复订单，并被保存。调用方最多等待 60 秒（`Prefer: wait=N`，0..60）；超时则返回 202 及状态 URL。同一工作流每天由 Temporal Schedule reconcile-daily 运行。这是运营方权限：仅限供给密钥（docs/TENANCY.md）。',
  'The finished run: summary and the first discrepancies of each kind.': '已完成的运行：摘要及每类差异的前若干条。',
  'Still running; poll status_url (also in Location).': '仍在运行；请轮询 status_url（也在 Location 头中）。',
  'days is not an integer 1..30 (or a body member has the wrong JSON type; the message names it).': 'days 不是 1..30 的整数（或请求体成员的 JSON 类型错误；消息中会指明该字段）。',
  'No order source of that name.': '不存在该名称的订单来源。',
  'as_of is not an ISO 8601 date-time in the past.': 'as_of 不是过去的 ISO 8601 日期时间。',
  'Temporal is not reachable.': '无法连接 Temporal。',
  'Get a reconciliation run': '获取对账运行',
  'A stored run, scheduled or on demand: while it runs, status running and no summary; then its summary and the first discrepancies of each kind.':
    '已保存的运行（定时或按需）：运行中时状态为 running 且无摘要；结束后为其摘要及每类差异的前若干条。',
  'The run.': '对账运行。',
  'No run with this id.': '不存在该 id 的运行。',
  // fields
  'Days of orders to reconcile, ending now (or at as_of): integer 1..30, default 1.': '要对账的订单天数，截至当前（或 as_of）：1..30 的整数，默认 1。',
  'Order source: platform_affiliate (default), a source name given to the importer, or a registered source.': '订单来源：platform_affiliate（默认）、导入时指定的来源名称，或已注册的来源。',
  'End of the window (ISO 8601, not in the future); default now.': '时间窗口的结束时间（ISO 8601，不能是未来时间）；默认为当前时间。',
  "The platform's order id; null for an unmatched gateway record.": '平台的订单 id；未匹配的网关记录为 null。',
  'checkout, match_token, rec_card, or order (an order listed more than once).': 'checkout、match_token、rec_card，或 order（同一订单被列出多次）。',
  "The gateway's amount.": '网关记录的金额。',
  "The platform's amount.": '平台报告的金额。',
  'Why, and where in the report (line, import batch).': '原因，以及在报告中的位置（行号、导入批次）。',
  'Each distinct order in exactly one outcome.': '每个不同的订单恰好属于一种结果。',
  'Confirmed checkouts and paid match tokens of the window, and how many an order names.': '窗口内已确认的结账和已支付的匹配令牌，以及其中被订单引用的数量。',
  'Exact counts per kind.': '每类的精确数量。',
  'Discrepancy rows stored per kind (at most stored_limit_per_kind).': '每类已保存的差异行数（最多 stored_limit_per_kind）。',
  'The Temporal workflow that ran it (reconcile-…).': '执行本次运行的 Temporal 工作流（reconcile-…）。',
  'Orders and gateway records with start <= time < end.': '时间满足 start <= time < end 的订单和网关记录。',
  'null until the run completes.': '运行完成前为 null。',
  'The first 20 stored discrepancies of each kind.': '每类已保存差异的前 20 条。',
};
