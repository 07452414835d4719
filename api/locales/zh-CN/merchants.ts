import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the merchants routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const merchantsZhCN: LocaleTexts = {
  operations: {
    postV1MerchantRegister: {
      summary: '注册或更新商家智能体',
      description:
        '创建商家（created:true），并仅此一次返回其 registration_token 和 webhook_secret。对已存在的 merchant_id 再次注册即为更新（created:false），需要该商家的 X-Merchant-Token。除 schema 所述之外：agent_endpoint 必须为 https 且只解析到公网地址，这取决于 DNS 应答（400 invalid_endpoint）。',
      responses: {
        '200': '已注册或已更新。',
        '400':
          '`missing_fields`: 缺少必填字段；`fields` 指出该字段。 `invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_endpoint`: 端点不是 https，或解析到私有、回环或链路本地地址。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401':
          '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。 `missing_registration_token`: 更新已存在的商家需要其 X-Merchant-Token。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。 `invalid_registration_token`: 注册令牌无效。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '422':
          '`ucp_discovery_failed`: protocol_version 为 ucp 时：无法读取 `{agent_endpoint}/.well-known/ucp`，或其内容不是 UCP 档案。 `ucp_version_unsupported`: protocol_version 为 ucp 时：该商家不提供网关支持的任何 UCP 版本（2026-04-08、2026-01-11）。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1MerchantHeartbeat: {
      summary: '商家智能体心跳',
      description: '刷新 last_seen_at。',
      responses: {
        '200': '刷新后的记录。',
        '400':
          '`missing_fields`: 缺少必填字段；`fields` 指出该字段。 `invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。 `missing_registration_token`: 缺少注册令牌（X-Merchant-Token）。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。 `invalid_registration_token`: 注册令牌无效。',
        '404': '`merchant_not_found`: 不存在该 ID 的商家智能体。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1MerchantMerchantId: {
      summary: '查询商家智能体',
      responses: {
        '200': '商家记录。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`merchant_not_found`: 不存在该 ID 的商家智能体。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1MerchantMerchantIdDeactivate: {
      summary: '停用商家智能体',
      description: '将状态设为 `inactive` 并设置 deactivated_at；重复调用保留首次的 deactivated_at。重新注册即可重新启用。',
      responses: {
        '200': '停用后的记录。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。 `missing_registration_token`: 缺少注册令牌（X-Merchant-Token）。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。 `invalid_registration_token`: 注册令牌无效。',
        '404': '`merchant_not_found`: 路径参数无法指向任何资源（格式或长度不符）。 `merchant_not_found`: 不存在该 ID 的商家智能体。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1MerchantMerchantIdHealth: {
      summary: '探测商家智能体端点',
      description:
        '对 agent_endpoint 发起一次有时限的 GET（最多 3 秒）。2xx 或 405 视为健康；否则返回 503，原因为 unreachable、timeout、bad_status、inactive 或 unsafe_endpoint。每次结果都会保存，供 SLA 报表使用。',
      responses: {
        '200': '健康。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`merchant_not_found`: 不存在该 ID 的商家智能体。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
        '503': '不健康或不可达。',
      },
    },
    getV1MerchantMerchantIdAgentReadiness: {
      summary: '商家的智能体就绪度评分',
      description: '四项检查各 25 分：工作流上下文、承诺型提案契约、信任证据策略、MatchToken 归因。next_upgrade 指出最有价值的缺失项。',
      responses: {
        '200': '就绪度评估结果。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`merchant_not_found`: 不存在该 ID 的商家智能体。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
  },
  schemas: {
    MerchantRegisterResponse: {
      registration_token: 'X-Merchant-Token 使用的密钥，仅在此处返回。',
      webhook_secret: '用于签名 Intent.Surge 投递的 `whsec_…` 密钥（Standard Webhooks）。',
    },
    WorkflowContext: {
      origin_workflow: '智能体所在的工作流，例如 `shopify_checkout` 或 `concierge_chat`。',
      accepted_intent_shapes: '它能响应的意图形态，例如 `product_search`、`bundle`、`replenishment`。',
      required_context: '报价前需要的意图字段，例如 `budget`、`region`、`size`。',
    },
    TrustEvidencePolicy: {
      accepted_sources: '它接受的证据来源，例如 `community`、`reddit`、`verified_reviews`。',
    },
    AgentReadyProfile: {
      proposal_contract: '`committed`：提案在 valid_until 之前是有约束力的报价。',
      attribution_mode: '`match_token`：订单通过签名的匹配令牌归因。',
    },
    MerchantRegisterRequest: {
      agent_endpoint: '商家智能体的 HTTPS Webhook 地址（Intent.Surge 投递到此）。',
      rotate_registration_token: '更新时：签发新的 registration_token；请求头中发送的旧令牌立即失效。',
      rotate_webhook_secret: '更新时：签发新的 webhook_secret（旧密钥立即停止用于签名）。',
      protocol_version:
        '网关与商家对接的方式（默认 `gateway`）。`gateway`：agent_endpoint 接收网关的 Webhook（Intent.Surge、运行时查询、结账交接）。`ucp`：agent_endpoint 是 UCP 商家的基础 URL；网关在注册时读取 `{agent_endpoint}/.well-known/ucp`（支持 2026-04-08 和 2026-01-11 版本；其他版本返回 422 `ucp_version_unsupported`，档案无法读取返回 422 `ucp_discovery_failed`），并通过其结账会话下单。`acp`：agent_endpoint 是 ACP 卖方的 API 基础 URL（API-Version 2026-04-17），需同时提供 `seller_credential`。',
      seller_credential:
        'acp：卖方签发给智能体的凭据（以 `Authorization: Bearer` 发送）。与 webhook 密钥一样加密保存，从不显示；更新时不提供则保留已存储的凭据。',
    },
    Merchant: {
      protocol_version: '`gateway`、`ucp` 或 `acp`（见注册请求）。',
      protocol_profile:
        'ucp：发现过程在 `{agent_endpoint}/.well-known/ucp` 读到的内容（协商出的 `version`、`rest_endpoint`、服务、能力、支付处理方，以及是否提供目录搜索），超过一小时即刷新；其他协议为 null。',
      has_seller_credential: 'acp：已存储卖方凭据（其值从不显示）。',
      sells_only_by_redirect:
        '`workflow_context.checkout_modes` 仅列出 `merchant_redirect`：商家在自己的商品页上销售；网关不向其投递、查询或下单，也不为其授权任何支付。',
    },
  },
};
