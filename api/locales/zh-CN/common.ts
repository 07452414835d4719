import type { LocaleTexts } from '../../openapi-text';

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
    ProductCardDocument: {
      offers:
        '谁在销售该商品：每个卖家一个报价，卡片自身的商品也在其中。推荐会把多个商家的同一商品（相同 GTIN，或相同品牌与 MPN，或相同的标题与变体）合并为一张卡片，列出找到的每个卖家；其他卡片只列出自身的商品。排序：可购买的报价在前，卡片币种的报价在其他币种之前，然后按价格升序，最后按推荐排名。添加该字段之前签发的卡片中没有此字段。',
    },
    ProductOffer: {
      product_id: '该卖家商品的目录 id（以字符串表示的整数）。',
      external_id: '卖家自己的商品 id；并非来自数据源时为 null。',
      merchant_id: '销售该商品的商家（商品所在目录的商家）。',
      seller: '数据源中注明的卖家名称（`seller_name`）；未注明时为 null。',
      title: '该卖家对商品的标题。',
      price_usd: '以美元计的价格；该卖家以其他币种定价时为 null。',
      price: '商品自身币种的价格（主币种单位），有折扣时附 compare_at。',
      rec_id: '该报价自己的 rec_id：卡片自身商品的报价即卡片的 rec_id，其他卖家的商品各有一张已签发的卡片（GET /v1/cards/{recId}）。',
      url: '从该卖家购买的归因链接 `${PUBLIC_BASE_URL}/r/<rec_id>`：请原样交给购物者。',
      link: '数据源给出的卖家商品页（不归因）；没有时为 null。',
      proposal_id:
        'GET /v1/recommend：该报价在推荐匹配会话中的目录提案（可用 POST /v1/match/{id}/accept 并传入此 proposal_id 接受）。其他途径签发的卡片中为 null。',
    },
    Video: {
      conversion_score: '0..1：每次观看的订单数相对于 10% 基准的比值。',
    },
  },
};
