import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the recommend routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const recommendZhCN: LocaleTexts = {
  operations: {
    getV1Recommend: {
      summary: '根据自然语言购物意图推荐商品',
      description:
        '从意图中解析关键词、类目、预算、受众和地区，按层级（raw_substring、strict、narrow、fuzzy、broadened）逐层检索商品；各层无法填满 `limit` 时以热门商品补足。多个商家销售的同一商品（相同 GTIN，或相同品牌与 MPN，或相同的标题与变体）合并为一项，在 `offers` 中列出每个卖家。每次调用都会创建意图、为每个报价创建一条目录提案，并创建对其排序的匹配会话。每个商品的 `cta.primary.url` 必须原样交给最终用户：它是一个重定向链接，会按 rec_id 记录点击并归因订单。`channel=portal_demo` 无需 API 密钥即可使用，按 IP 限流。',
      params: {
        region: '收货国家；优先于意图文本中提到的地区。',
        channel: '客户端提示，随卡片及其点击一同记录。`portal_demo` 无需 API 密钥（按 IP 限流）。',
      },
      fields: {
        'param.region': '收货国家；优先于意图文本中提到的地区。',
        'param.channel': '客户端提示，随卡片及其点击一同记录。`portal_demo` 无需 API 密钥（按 IP 限流）。',
      },
      responses: {
        '200': '排序后的商品卡片文档，以及为其创建的记录。',
        '400':
          '`invalid_query`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: intent 缺失或为空、limit 不在 1..10 范围内，或 region 不是 ISO 国家代码。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '429':
          '`rate_limited`: 该 IP 的门户演示调用在窗口期内超过了 PORTAL_DEMO_RATE_LIMIT_PER_IP。 `rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
        '503': '`service_unavailable`: 服务暂时不可用（无法连接数据库）。',
      },
    },
  },
  schemas: {
    RecommendResponse: {
      intent: '查询的回显。',
      intent_id: '本次调用创建的意图；可用于 /v1/intents。',
      items:
        '排序后的商品卡片文档，每个商品一张：多个商家销售的同一商品为一项，其 `offers` 列出每个卖家。请将每个 `cta.primary.url`（以及报价的 `url`）原样交给购物者：其中携带用于订单归因的 rec_id。',
      proposals:
        '每个报价一条目录提案（provenance 为 `catalog`），按商品顺序排列：先是每项自身的商品，再按 `offers` 的顺序列出其他卖家的报价（每个报价的 `proposal_id` 指向其提案）。',
      match_session_id: '对这些提案排序的匹配会话；可通过 POST /v1/match/{id}/accept 接受。',
      shopper_guide: '面向用户的文案，说明所选商品与意图的关系。',
      note: '`intent_plus_trending`：意图命中结果以热门商品补足；`trending_suggested`：无意图命中，全部为热门商品；`no_results`：没有商品通过筛选；null：全部为意图命中。',
      match_tier: '贡献了意图命中的最后一个检索层级（各层填满 `limit` 时即填满的那一层）；没有任何层级命中时为 `none`。',
      intent_source: '`natural_language`；提供了 region 参数时为 `natural_language+region_param`。',
      resolved_categories: '从意图中解析出的类目路径，形如 "L1" 或 "L1 > L2"。',
    },
  },
};
