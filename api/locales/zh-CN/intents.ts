import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the intents routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const intentsZhCN: LocaleTexts = {
  operations: {
    postV1Intents: {
      summary: '创建购物意图',
      description:
        'raw_query 为必填。缺少的结构化信息从文本中解析：规范化查询、标签、预算（"under $50"）和地区（"in Canada"）；resolution_summary 说明推导了哪些内容。除 schema 所述之外：budget_range.min 不得大于 budget_range.max（400 invalid_payload）。',
      responses: {
        '201': '意图。',
        '400':
          '`missing_fields`: 缺少必填字段；`fields` 指出该字段。 `invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1IntentsIntentId: {
      summary: '获取意图',
      description:
        '创建它的开发者的密钥可读取；意图已分发到（或已对其提案）的商家在请求携带其 X-Merchant-Token 时也可读取；其他人得到 404 intent_not_found。',
      responses: {
        '200': '意图。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403':
          '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。 `invalid_registration_token`: X-Merchant-Token 不是任何商家的注册令牌。',
        '404': '`intent_not_found`: 不存在该 id 的意图。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1IntentsIntentIdProposals: {
      summary: '列出意图的提案',
      description:
        '按时间先后排列。除非 include_expired=true，否则不包含已过期的提案。意图所属的开发者可看到全部提案；收到该意图的商家（X-Merchant-Token）只能看到自己的提案。',
      responses: {
        '200': '提案列表。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403':
          '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。 `invalid_registration_token`: X-Merchant-Token 不是任何商家的注册令牌。',
        '404': '`intent_not_found`: 不存在该 id 的意图。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1Proposals: {
      summary: '为意图提交商家提案',
      description:
        '需要 merchant_agent_id 对应的 X-Merchant-Token。商家可回应已分发给它的意图，或标签、地区和品类符合其订阅的意图（Intent.Surge 规则）；其他意图返回 404 intent_not_found。product_id（网关目录 id）、external_id（商家数据源中自己的商品 id）或 variant_id（其某个变体在数据源中的 id 或 SKU）三者恰好提供其一以指明商品；商家自己的 id 只能指向该商家自己的商品（GET /v1/merchant/{merchantId}/products 列出两种 id）。商品必须存在；其信息冻结到 product_snapshot，并计算 trust_score 及其依据。proposal_state 初始为 quoted（或 draft）。除 schema 所述之外：shipping_commitment.min_days 不得大于 max_days（400 invalid_payload）。',
      responses: {
        '201': '提案，附带警告（例如商品不在意图所指的品类中）。',
        '400':
          '`missing_fields`: 缺少必填字段；`fields` 指出该字段。 `invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。 `missing_registration_token`: 缺少注册令牌（X-Merchant-Token）。',
        '403':
          '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。 `invalid_registration_token`: 该令牌不是 merchant_agent_id 的注册令牌。',
        '404':
          '`merchant_not_found`: 不存在该 ID 的商家智能体。 `intent_not_found`: 不存在该 id 的意图。 `product_not_found`: 目录中不存在该 product_id 的商品，或 merchant_agent_id 自己的商品中没有该 external_id 或 variant_id（其他商家的 id 同样找不到）。',
        '409': '`merchant_inactive`: 该商家已停用。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1ProposalsProposalId: {
      summary: '获取提案',
      description: '意图所属开发者的密钥以及提交该提案的商家（X-Merchant-Token）可读取；其他人得到 404 proposal_not_found。',
      responses: {
        '200': '提案。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403':
          '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。 `invalid_registration_token`: X-Merchant-Token 不是任何商家的注册令牌。',
        '404': '`proposal_not_found`: 不存在该 id 的提案。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
  },
  schemas: {
    ProposalCreateRequest: {
      '': 'product_id、external_id 与 variant_id 三者恰好提供其一以指明商品（都未提供：400 missing_fields；提供多个：400 invalid_payload）。',
      product_id: '网关目录中的商品 id（目录中的任一商品）。',
      external_id:
        '或改用商家自己的商品 id：其数据源中的 `id`，或将其变体行归为一组的 id（即 GET /v1/merchant/{merchantId}/products 所列）。仅限 merchant_agent_id 自己的商品；其他商家的 id 返回 404 product_not_found。',
      variant_id:
        '或商家某个变体在数据源中的 id 或 SKU（或无变体商品在数据源中的 id）：指向列出该变体的商品，并保存在 product_snapshot.variant_id 中。仅限 merchant_agent_id 自己的商品。',
      proposal_state: '以草稿（不参与排序）或报价（默认）提交。',
      inventory_status: '默认根据目录库存推断。',
      'evidence[].type': '例如 review、community_post、certification、test_report',
      experience_preview: '商家自己的预览素材（例如 {type, url}）；原样作为 referenced 类型 experience_preview 的素材保存。',
      experience_card: '原样保存在 experience_card.merchant_supplied 中；卡片本身由网关生成。',
    },
    CommissionPlan: {
      rate: '销售额分成比例，0..1。',
    },
  },
};
