/** zh-CN translations of the recommend route texts (merged into openapi-locales). */
export const recommendZhCN: Record<string, string> = {
  'Recommend products for a natural-language shopping intent': '根据自然语言购物意图推荐商品',
  'Reads keywords, categories, budget, audience and region from the intent, retrieves products tier by tier (raw_substring, strict, narrow, fuzzy, broadened) and tops up with trending products when the tiers cannot fill `limit`. Each call creates the intent, one catalog proposal per item and a match session ranking them. The `cta.primary.url` of every item MUST be passed to the end user verbatim: it is a redirect that records the click under the rec_id and attributes the order. `channel=portal_demo` works without an API key, rate-limited per IP.':
    '从意图中解析关键词、类目、预算、受众和地区，按层级（raw_substring、strict、narrow、fuzzy、broadened）逐层检索商品；各层无法填满 `limit` 时以热门商品补足。每次调用都会创建意图、为每个商品创建一条目录提案，并创建对其排序的匹配会话。每个商品的 `cta.primary.url` 必须原样交给最终用户：它是一个重定向链接，会按 rec_id 记录点击并归因订单。`channel=portal_demo` 无需 API 密钥即可使用，按 IP 限流。',
  'Ranked Product Card Documents and the records created for them.': '排序后的商品卡片文档，以及为其创建的记录。',
  'intent missing or empty, limit outside 1..10, or region not an ISO country code.': 'intent 缺失或为空、limit 不在 1..10 范围内，或 region 不是 ISO 国家代码。',
  'Service temporarily unavailable (the database cannot be reached).': '服务暂时不可用（无法连接数据库）。',
  'Portal demo calls from this IP exceeded PORTAL_DEMO_RATE_LIMIT_PER_IP per window.': '该 IP 的门户演示调用在窗口期内超过了 PORTAL_DEMO_RATE_LIMIT_PER_IP。',
  'Ship-to country; wins over a region named in the intent text.': '收货国家；优先于意图文本中提到的地区。',
  'Client hint, recorded with the cards and their clicks. `portal_demo` works without an API key (rate-limited per IP).': '客户端提示，随卡片及其点击一同记录。`portal_demo` 无需 API 密钥（按 IP 限流）。',
  'Echo of the query.': '查询的回显。',
  'The intent this call created; usable with /v1/intents.': '本次调用创建的意图；可用于 /v1/intents。',
  'Ranked Product Card Documents. Pass each `cta.primary.url` to the shopper verbatim: it carries the rec_id that attributes the order.': '排序后的商品卡片文档。请将每个 `cta.primary.url` 原样交给购物者：其中携带用于订单归因的 rec_id。',
  'One catalog proposal (provenance `catalog`) per item, in item order.': '每个商品一条目录提案（provenance 为 `catalog`），顺序与商品一致。',
  'A match session ranking those proposals; accept it with POST /v1/match/{id}/accept.': '对这些提案排序的匹配会话；可通过 POST /v1/match/{id}/accept 接受。',
  'Human-facing copy explaining how the picks relate to the intent.': '面向用户的文案，说明所选商品与意图的关系。',
  '`intent_plus_trending`: intent hits topped up with trending products; `trending_suggested`: no intent hit, all items trending; `no_results`: nothing passed the filters; null: all items are intent hits.':
    '`intent_plus_trending`：意图命中结果以热门商品补足；`trending_suggested`：无意图命中，全部为热门商品；`no_results`：没有商品通过筛选；null：全部为意图命中。',
  'The last retrieval tier that contributed intent hits (the one that filled `limit` when the tiers did); `none` when no tier found anything.':
    '贡献了意图命中的最后一个检索层级（各层填满 `limit` 时即填满的那一层）；没有任何层级命中时为 `none`。',
  '`natural_language`, or `natural_language+region_param` when the region parameter was given.': '`natural_language`；提供了 region 参数时为 `natural_language+region_param`。',
  '"L1" or "L1 > L2" taxonomy paths read from the intent.': '从意图中解析出的类目路径，形如 "L1" 或 "L1 > L2"。',
};
