/** zh-CN translations of the proof feed route texts (merged into openapi-locales). */
export const proofZhCN: Record<string, string> = {
  // route
  'Proof feed: outcome-backed creator videos or community evidence': '证据流：有成交结果支撑的创作者视频或社区证据',
  'source=commerce (default): creator videos with verified outcomes (orders and GMV above zero), ranked by conversion_score, then GMV, each with a proof statement generated from its numbers. source=community, community-proof or reddit: imported community evidence grouped per product or topic, with an upvote-weighted consensus score, flagged contradictions and the automation_plan of the bounded import (allow-listed subreddits, per-source limits, schedule; no crawling). Both variants filter by intent and products; subreddits applies to the community variant only. Nothing is fetched from the network.':
    'source=commerce（默认）：具有已验证成交结果（订单数和 GMV 均大于零）的创作者视频，按 conversion_score、其次按 GMV 排序，每条附带根据其数据生成的证据说明。source=community、community-proof 或 reddit：已导入的社区证据，按商品或话题分组，附带按点赞加权的共识分数、标记出的矛盾，以及有界导入的 automation_plan（白名单 subreddit、各来源上限、计划频率；不爬取）。两种变体都可按 intent 和 products 过滤；subreddits 仅适用于社区变体。不会从网络获取任何内容。',
  'CommerceProofFeed for source=commerce, CommunityProofFeed for a community source.': 'source=commerce 时返回 CommerceProofFeed，社区来源时返回 CommunityProofFeed。',
  // query
  'Items to return, 1..24, default 12 (commerce: videos; community: product or topic groups).': '返回的条目数，1..24，默认 12（commerce：视频；community：商品或话题分组）。',
  '`commerce` (default): outcome-backed creator videos. `community`, `community-proof` and `reddit` all select imported community evidence.':
    '`commerce`（默认）：有成交结果支撑的创作者视频。`community`、`community-proof` 和 `reddit` 均选择已导入的社区证据。',
  'Shopping intent in free text. Its keywords filter by full-text search: all keywords, else any keyword; filters.match says which.':
    '自由文本形式的购物意图。其关键词用于全文检索过滤：先匹配全部关键词，否则匹配任一关键词；filters.match 说明采用了哪种。',
  'Comma-separated product names (up to 10); an item matches when a product title contains any of them.': '逗号分隔的商品名称（最多 10 个）；商品标题包含其中任一名称即匹配。',
  'Community only: comma-separated allow-list of subreddits (up to 10). Filters the evidence and bounds the automation plan; nothing is crawled.':
    '仅限社区：逗号分隔的 subreddit 白名单（最多 10 个）。用于过滤证据并限定自动化计划的范围；不会爬取任何内容。',
  // response fields
  'Catalog product id (integer as a string).': '目录商品 id（以字符串表示的整数）。',
  'Current price in USD; null when the product is priced in another currency.': '以美元计的当前价格；商品以其他币种定价时为 null。',
  '0..1: orders per view against a 10% benchmark.': '0..1：每次观看的订单数相对于 10% 基准的比值。',
  'How the intent filtered: every keyword, or (when that found nothing) any keyword; null without an intent or when it has no keywords.':
    'intent 的过滤方式：全部关键词，或（全部关键词无结果时）任一关键词；没有 intent 或其不含关键词时为 null。',
  'Keywords read from the intent.': '从 intent 中提取的关键词。',
  'One sentence generated from the outcome numbers above and nothing else.': '仅根据上述成交数据生成的一句话。',
  'Videos with verified outcomes (orders and GMV above zero), by conversion_score, then GMV, then task_id.': '具有已验证成交结果（订单数和 GMV 均大于零）的视频，依次按 conversion_score、GMV、task_id 排序。',
  'Subreddit (without r/) or forum board.': 'Subreddit（不含 r/）或论坛版块。',
  'Pseudonymous author key (SHA-256); never a username.': '假名化的作者标识（SHA-256）；绝不是用户名。',
  'At most 500 characters.': '最多 500 个字符。',
  'The catalog product product_name was linked to at import, if any.': '导入时 product_name 关联到的目录商品（如有）。',
  '|positive − negative| / (positive + negative) by weight; null when every claim is neutral.': '按权重计算的 |positive − negative| / (positive + negative)；所有观点均为中立时为 null。',
  'An attribute with both positive and negative claims.': '同时存在正面和负面观点的属性。',
  '`product:<id>` for evidence linked to a catalog product, else `topic:<product name>`.': '关联到目录商品的证据为 `product:<id>`，否则为 `topic:<商品名称>`。',
  'The product name as the most upvoted evidence gives it.': '点赞最多的证据中给出的商品名称。',
  '0..1: upvote-weighted agreement of stances per attribute (see docs/PROOF.md); null when no claim takes a side.': '0..1：按点赞加权、逐属性计算的立场一致度（见 docs/PROOF.md）；没有任何观点表明立场时为 null。',
  'Evidence records with at least one positive or negative claim.': '至少含有一条正面或负面观点的证据记录数。',
  'Positive and negative claims counted.': '计入的正面和负面观点数。',
  'The 10 most upvoted records; consensus and contradictions use all of them.': '点赞最多的 10 条记录；共识与矛盾基于全部记录计算。',
  'The subreddits parameter, or the documented default allow-list.': '来自 subreddits 参数，或文档中给出的默认白名单。',
  'The command that loads the collected JSONL file.': '导入所采集 JSONL 文件的命令。',
  'How community evidence gets here: a bounded, scheduled import of allow-listed communities. This endpoint fetches nothing from the network.':
    '社区证据的来源：对白名单社区进行有界的定时导入。此接口不会从网络获取任何内容。',
  'Evidence grouped per product or topic, strongest first (upvote weight, then record count).': '按商品或话题分组的证据，最有力的在前（先按点赞权重，再按记录数）。',
};
