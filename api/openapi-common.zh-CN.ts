import type { LocaleTexts } from './openapi-text';

/** zh-CN texts of the document itself and of schemas several route areas share, by address (api/openapi-text.ts). */
export const commonZhCN: LocaleTexts = {
  document: {
    info: '购物方（需求侧）智能体与商家（供给侧）智能体之间的 HTTP 网关：推荐、意图、提案、匹配会话与匹配令牌、结账授权、注册表、体验式电商、供给运营以及开发者控制台。',
    'securityScheme.ApiKey': '在开发者控制台签发的 API 密钥：Authorization: Bearer <API_KEY>。',
    'securityScheme.DeveloperToken': '注册和登录时返回的开发者控制台会话令牌。',
    'securityScheme.SupplyKey': '供给侧/管理员密钥。',
    'securityScheme.MerchantToken': '商家智能体的注册令牌。',
    'securityScheme.AgentToken': '商务智能体的注册令牌。',
  },
  schemas: {
    Error: {
      '': '所有接口使用的错误响应体。',
      error: '机器可读的错误码。',
      message: '人类可读的说明。',
    },
    BudgetRange: {
      '': '以主币种单位表示的消费区间；`max` 是排序使用的硬上限。`min` 不得大于 `max`（400 invalid_payload；这是跨两个成员的规则，schema 未表述）。',
    },
    TimeWindow: {
      deadline: '可接受的最晚送达时间。',
    },
    WorkflowRef: {
      '': 'Skill / MCP / A2A 执行上下文，用于重放和治理。',
    },
    Proposal: {
      experience_preview: '提交时生成的 ExperiencePreview（GET /v1/recommend 的目录提案为空）。',
      experience_card: '提交时根据商品、其创作者证据和意图生成的 ExperienceCard（GET /v1/recommend 的目录提案为空）。',
    },
    MatchToken: {
      signed_token: '对各 ID、金额、币种和过期时间签名的紧凑 JWS（EdDSA）；公钥见 /.well-known/jwks.json。',
    },
    Product: {
      id: '目录商品 id（以字符串表示的整数）。',
      external_id:
        '商家自己的商品 id：其数据源 id，或将其变体行归为一组的 id（GET /v1/merchant/{merchantId}/products）。并非来自数据源的商品为 null；添加该字段之前签发的卡片中没有此字段。',
      price_usd: '以美元计的当前价格；商品以其他币种定价时为 null。',
    },
    Video: {
      conversion_score: '0..1：每次观看的订单数相对于 10% 基准的比值。',
    },
  },
};
