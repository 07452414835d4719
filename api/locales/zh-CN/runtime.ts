import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the runtime routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const runtimeZhCN: LocaleTexts = {
  operations: {
    postV1CommerceRuntime: {
      summary: '运行商务运行时',
      description:
        '运行一个可审计的智能体循环（docs/RUNTIME.md）：解析意图，询问订阅的商家智能体（无商家应答时由目录应答），对提案排序，签发匹配令牌；当预算不要求用户确认时还会授权支付。每次迭代都是一个 AgentStep；commerce_budget 限定循环。调用方最多等待 20 秒（`Prefer: wait=N`，0..60）；超时则返回 202 及状态 URL。除 schema 所述之外：intent.budget_range.min 不得大于其 max（400 invalid_payload）。',
      responses: {
        '201': '已完成的运行时，附带关联的意图、提案、匹配会话和匹配令牌。',
        '202': '仍在运行；请轮询 status_url（也在 Location 头中）。',
        '400':
          '`missing_intent`: 缺少必填字段；`fields` 指出该字段。 `invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
        '503': '`temporal_unavailable`: 无法连接 Temporal。',
      },
    },
    getV1CommerceRuntimeRuntimeId: {
      summary: '获取商务运行时',
      description: '已存储的运行时：运行中时为目前的步骤（runtime_trace.audit_status 为 `running`）；结束后为最终状态。',
      responses: {
        '200': '运行时。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`runtime_not_found`: 不存在该 id 的运行时。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
  },
  schemas: {
    CommerceRuntime: {
      'runtime_session.workflow_id': '对应的 Temporal 工作流：runtime-<runtime_id>。',
      'runtime_trace.loop': '所运行的循环（按顺序列出各阶段）。',
      'runtime_trace.current_step': '最近一个 AgentStep 的序号；第一个步骤之前为 null。',
      'runtime_trace.audit_status': 'running、completed、budget_exhausted:<预算名> 或 failed:<原因>。',
    },
    AgentStep: {
      '': '运行时循环的一次迭代（审计记录）。',
      index: '在循环中的位置（从 0 开始）。',
      agent_id: '执行者：入口智能体、商家 id、gateway-catalog、gateway-matcher 或 gateway-reconciler。',
    },
    CommerceBudget: {
      max_agent_iterations: '循环可运行的 AgentStep 数（1..50，默认 8）。',
      max_merchant_queries: '循环可调用的商家智能体数（1..20，默认 5）。',
      max_proposal_versions: '循环可收集的提案（及修订）数（1..10，默认 3）。',
      require_user_confirmation_before_payment: 'true（默认）：在 awaiting_user_confirmation 处停止并返回匹配令牌；false：同时授权支付。',
    },
    CommerceMemoryRef: {
      '': '指向调用方智能体所持记忆的引用；运行时记录并原样返回。',
      kind: '例如 preference、past_order、conversation、taste_profile。',
    },
    CommerceRuntimeRequest: {
      intent: '普通的意图请求体（需要 raw_query）。缺失时返回 400 missing_intent。',
      'runtime_session.mode': 'assisted（默认）或 autonomous；仅供参考，是否支付由预算决定。',
    },
  },
};
