import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the reconciliation routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const reconciliationZhCN: LocaleTexts = {
  operations: {
    postV1ReconciliationPlatformAffiliateRun: {
      summary: '对账平台联盟订单',
      description:
        '运行对账工作流（docs/RECONCILIATION.md）：将时间窗口内的平台订单（来自导入表或其他已注册的来源）与结账、匹配令牌和 rec_id 进行匹配；本次运行报告已匹配订单、金额不符、双方各自未匹配的记录以及重复订单，并被保存。调用方最多等待 60 秒（`Prefer: wait=N`，0..60）；超时则返回 202 及状态 URL。同一工作流每天由 Temporal Schedule reconcile-daily 运行。这是运营方权限：仅限供给密钥（docs/TENANCY.md）。除 schema 所述之外：source 必须是已导入过订单的来源或已注册的来源（400 invalid_source），as_of 不得晚于当前时间（400 invalid_as_of）。',
      responses: {
        '200': '已完成的运行：摘要及每类差异的前若干条。',
        '202': '仍在运行；请轮询 status_url（也在 Location 头中）。',
        '400':
          '`invalid_days`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_days`: days 不是 1..30 的整数（或请求体成员的 JSON 类型错误；消息中会指明该字段）。 `invalid_source`: 不存在该名称的订单来源。 `invalid_as_of`: as_of 不是过去的 ISO 8601 日期时间。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_supply_key`: 供给密钥无效或缺失。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
        '503': '`temporal_unavailable`: 无法连接 Temporal。',
      },
    },
    getV1ReconciliationRunsRunId: {
      summary: '获取对账运行',
      description: '已保存的运行（定时或按需）：运行中时状态为 running 且无摘要；结束后为其摘要及每类差异的前若干条。',
      responses: {
        '200': '对账运行。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_supply_key`: 供给密钥无效或缺失。',
        '404': '`reconciliation_run_not_found`: 不存在该 id 的运行。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
  },
  schemas: {
    ReconciliationRun: {
      workflow_id: '执行本次运行的 Temporal 工作流（reconcile-…）。',
      window: '时间满足 start <= time < end 的订单和网关记录。',
      summary: '运行完成前为 null。',
      'summary.outcomes': '每个不同的订单恰好属于一种结果。',
      'summary.gateway_records': '窗口内已确认的结账和已支付的匹配令牌，以及其中被订单引用的数量。',
      'summary.discrepancies': '每类的精确数量。',
      'summary.stored': '每类已保存的差异行数（最多 stored_limit_per_kind）。',
      discrepancies: '每类已保存差异的前 20 条。',
    },
    ReconciliationDiscrepancy: {
      order_id: '平台的订单 id；未匹配的网关记录为 null。',
      ref_type: 'checkout、match_token、rec_card，或 order（同一订单被列出多次）。',
      expected_amount: '网关记录的金额。',
      actual_amount: '平台报告的金额。',
      detail: '原因，以及在报告中的位置（行号、导入批次）。',
    },
    ReconciliationRunRequest: {
      days: '要对账的订单天数，截至当前（或 as_of）：1..30 的整数，默认 1。',
      source: '订单来源：platform_affiliate（默认）、导入时指定的来源名称，或已注册的来源。其他名称返回 400 invalid_source。',
      as_of: '时间窗口的结束时间（ISO 8601，不能是未来时间）；默认为当前时间。',
    },
  },
};
