import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the proof routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const proofZhCN: LocaleTexts = {
  operations: {
    getV1ProofFeed: {
      summary: '证据流：有成交结果支撑的创作者视频或社区证据',
      description:
        'source=commerce（默认）：具有已验证成交结果（订单数和 GMV 均大于零）的创作者视频，按 conversion_score、其次按 GMV 排序，每条附带根据其数据生成的证据说明。source=community、community-proof 或 reddit：已导入的社区证据，按商品或话题分组，附带按点赞加权的共识分数、标记出的矛盾，以及有界导入的 automation_plan（白名单 subreddit、各来源上限、计划频率；不爬取）。两种变体都可按 intent 和 products 过滤；subreddits 仅适用于社区变体。不会从网络获取任何内容。',
      params: {
        limit: '返回的条目数，1..24，默认 12（commerce：视频；community：商品或话题分组）。',
        source: '`commerce`（默认）：有成交结果支撑的创作者视频。`community`、`community-proof` 和 `reddit` 均选择已导入的社区证据。',
        intent: '自由文本形式的购物意图。其关键词用于全文检索过滤：先匹配全部关键词，否则匹配任一关键词；filters.match 说明采用了哪种。',
        products: '逗号分隔的商品名称（最多 10 个）；商品标题包含其中任一名称即匹配。',
        subreddits: '仅限社区：逗号分隔的 subreddit 白名单（最多 10 个）。用于过滤证据并限定自动化计划的范围；不会爬取任何内容。',
      },
      fields: {
        'param.limit': '返回的条目数，1..24，默认 12（commerce：视频；community：商品或话题分组）。',
        'param.source':
          '`commerce`（默认）：有成交结果支撑的创作者视频。`community`、`community-proof` 和 `reddit` 均选择已导入的社区证据。',
        'param.intent':
          '自由文本形式的购物意图。其关键词用于全文检索过滤：先匹配全部关键词，否则匹配任一关键词；filters.match 说明采用了哪种。',
        'param.products': '逗号分隔的商品名称（最多 10 个）；商品标题包含其中任一名称即匹配。',
        'param.subreddits': '仅限社区：逗号分隔的 subreddit 白名单（最多 10 个）。用于过滤证据并限定自动化计划的范围；不会爬取任何内容。',
      },
      responses: {
        '200': 'source=commerce 时返回 CommerceProofFeed，社区来源时返回 CommunityProofFeed。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
  },
  schemas: {
    CommerceProofFeed: {
      items: '具有已验证成交结果（订单数和 GMV 均大于零）的视频，依次按 conversion_score、GMV、task_id 排序。',
      'filters.keywords': '从 intent 中提取的关键词。',
      'filters.match': 'intent 的过滤方式：全部关键词，或（全部关键词无结果时）任一关键词；没有 intent 或其不含关键词时为 null。',
    },
    CommerceProofItem: {
      'outcome.conversion_score': '0..1：每次观看的订单数相对于 10% 基准的比值。',
      proof_statement: '仅根据上述成交数据生成的一句话。',
    },
    ProofProduct: {
      id: '目录商品 id（以字符串表示的整数）。',
      price_usd: '以美元计的当前价格；商品以其他币种定价时为 null。',
    },
    CommunityProofFeed: {
      items: '按商品或话题分组的证据，最有力的在前（先按点赞权重，再按记录数）。',
      'filters.keywords': '从 intent 中提取的关键词。',
      'filters.match': 'intent 的过滤方式：全部关键词，或（全部关键词无结果时）任一关键词；没有 intent 或其不含关键词时为 null。',
    },
    CommunityProofGroup: {
      group_id: '关联到目录商品的证据为 `product:<id>`，否则为 `topic:<商品名称>`。',
      topic: '点赞最多的证据中给出的商品名称。',
      evidence: '点赞最多的 10 条记录；共识与矛盾基于全部记录计算。',
    },
    Consensus: {
      score: '0..1：按点赞加权、逐属性计算的立场一致度（见 docs/PROOF.md）；没有任何观点表明立场时为 null。',
      sample_size: '至少含有一条正面或负面观点的证据记录数。',
      claim_count: '计入的正面和负面观点数。',
    },
    AttributeConsensus: {
      agreement: '按权重计算的 |positive − negative| / (positive + negative)；所有观点均为中立时为 null。',
    },
    Contradiction: {
      '': '同时存在正面和负面观点的属性。',
    },
    CommunityEvidence: {
      community: 'Subreddit（不含 r/）或论坛版块。',
      author_hash: '假名化的作者标识（SHA-256）；绝不是用户名。',
      excerpt: '最多 500 个字符。',
      product_id: '导入时 product_name 关联到的目录商品（如有）。',
    },
    AutomationPlan: {
      '': '社区证据的来源：对白名单社区进行有界的定时导入。此接口不会从网络获取任何内容。',
      'sources[].communities_from': '来自 subreddits 参数，或文档中给出的默认白名单。',
      import_command: '导入所采集 JSONL 文件的命令。',
    },
  },
};
