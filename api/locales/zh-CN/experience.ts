import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the experience routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const experienceZhCN: LocaleTexts = {
  operations: {
    postV1DecisionEvents: {
      summary: '记录决策事件',
      description:
        '购物方对报价或推荐流条目的反馈（pick、nope、remix、confirm）以及结果事件（view、click、purchase、return、complaint、fulfilled、late_delivery）。所引用的每个对象都必须存在且彼此一致；merchant_id 和 product_id 由提案推导。remix 需要 payload.dimension 和 payload.value，并返回修订后的体验预览；confirm 关联到给定的匹配令牌，或该提案最新的令牌。SLA 与信誉基于这些事件计算（见 docs/EXPERIENCE.md）。除 schema 所述之外（其 anyOf 说明每种事件类型需要哪些引用）：remix 的新值不得与当前值相同，agent_id 与 payload.agent_id 必须指同一智能体（400 invalid_payload）；所引用的每条记录都必须存在（404）且彼此一致（409）。',
      responses: {
        '201': '已存储的事件。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `unsupported_decision_event`: event_type 缺失或不是受支持的类型之一。 `invalid_payload`: 某个字段无效，remix 缺少可改编的 payload.dimension 或 payload.value，或 confirm/fulfilled/late_delivery 未指明提案。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404':
          '`intent_not_found`: 不存在该 id 的意图。 `proposal_not_found`: 不存在该 id 的提案。 `match_token_not_found`: 不存在该 id 的匹配令牌。 `product_not_found`: 目录中不存在该 id 的商品。',
        '409':
          '`proposal_intent_mismatch`: 该提案回应的是另一个意图。 `match_token_mismatch`: 该匹配令牌指向另一个提案。 `product_mismatch`: product_id 与提案中的商品不一致。 `match_token_not_issued`: 未提供 match_token_id 的 confirm，且该提案尚无匹配令牌。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1ExperienceFeed: {
      summary: '面向购物智能体的主动体验推荐流',
      description:
        '以体验卡片呈现的目录商品，按与智能体口味画像（由其 pick、confirm、purchase、nope、return 和 complaint 事件推导，并与请求中的 taste_profile 合并；显式给出的成员优先）及灵感引用的契合度排序，分数接近时由创作者证据决定先后。最近一次口味事件为负面的商品会被排除。结果确定：相同输入在相同事件上得到相同顺序的相同条目和相同的 feed_id。除 schema 所述之外：taste_profile.price_band.min 不得大于其 max（400 invalid_payload）。',
      responses: {
        '200': '推荐流。',
        '400':
          '`invalid_payload`: 缺少必填字段；`fields` 指出该字段。 `invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_payload`: 缺少 agent_id，或某个字段无效（limit 为 1..24）。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
  },
  schemas: {
    DecisionEvent: {
      merchant_id: '提案所属商家；SLA 与信誉据此读取。',
      revised_experience_preview: '仅 remix：改编后的预览（同时保存在 payload 中）。',
      'revised_experience_preview.kind':
        '商家提供了自己的预览素材时为 `referenced`（原样保存在 asset 中），否则为根据目录图片和上下文生成的 `generated`。',
      'revised_experience_preview.scene_preview.prompt': '由上述维度组合而成的渲染提示词；网关本身不做任何渲染。',
      'revised_experience_preview.revision': '提交时为 0；每次改编加一。',
    },
    RemixableDimension: {
      options: '建议取值；任何简短文本都可作为改编取值。',
    },
    DecisionEventRequest: {
      event_type: '其他取值或缺失时返回 400 unsupported_decision_event。',
      product_id: '没有提案时引用的目录商品（体验推荐流条目）；否则由提案推导。',
      agent_id: '该事件所反映口味的购物智能体；也可通过 payload.agent_id 提供。',
      payload: 'remix 需要 dimension（预览可改编维度之一）和 value。',
    },
    ExperienceFeed: {
      feed_id: '请求与条目 id 的内容哈希：相同输入在相同事件上得到相同的 id。',
      'taste_profile.derived.event_count': '读取到的该智能体口味事件数（pick、confirm、purchase、nope、return、complaint）。',
      'taste_profile.derived.excluded_product_ids': '最近一次口味事件为负面的商品。',
    },
    ExperienceCard: {
      creator_evidence: '该商品最多 3 个有订单的视频，依次按 conversion_score、GMV 排序。',
      why_it_fits_you: '仅包含商品、报价、创作者数据、上下文或口味数据所支持的内容。',
      caveats: '不利于契合的事实（超出预算、不销售到该地区）。',
      'remix_actions[]': '将该事件（填入取值）POST 到 /v1/decision-events。',
      merchant_supplied: '商家提交的 experience_card 对象，原样保存。',
    },
    ExperiencePreview: {
      kind: '商家提供了自己的预览素材时为 `referenced`（原样保存在 asset 中），否则为根据目录图片和上下文生成的 `generated`。',
      'scene_preview.prompt': '由上述维度组合而成的渲染提示词；网关本身不做任何渲染。',
      revision: '提交时为 0；每次改编加一。',
    },
    ExperienceProduct: {
      external_id: '商家自己的商品 id（其数据源 id）；并非来自数据源的商品为 null。添加该字段之前生成的卡片中没有此字段。',
      price: '报价价格（提案）或目录价格（推荐流）。',
    },
    CreatorEvidence: {
      gmv: '美元。',
    },
    FitStatement: {
      statement: '仅根据 `data` 生成的一句话。',
      data: '生成该陈述所依据的数字和词语。',
    },
    ExperienceFeedRequest: {
      limit: '条目数，1..24，默认 6。',
    },
    TasteProfileInput: {
      categories: '一级或二级目录类目名称。',
      price_band: '美元。`min` 不得大于 `max`（400 invalid_payload；这是跨两个成员的规则，schema 未表述）。',
    },
  },
};
