/** zh-CN translations of the experience route texts (merged into openapi-locales). */
export const experienceZhCN: Record<string, string> = {
  // routes
  'Record a decision event': '记录决策事件',
  'Shopper-side feedback on an offer or a feed item (pick, nope, remix, confirm) and outcome events (view, click, purchase, return, complaint, fulfilled, late_delivery). Every named reference must exist and agree with the others; merchant_id and product_id are derived from the proposal. remix needs payload.dimension and payload.value and answers with the revised experience preview; confirm links to the given match token or the newest token of the proposal. SLA and reputation read these events (docs/EXPERIENCE.md).':
    '购物方对报价或推荐流条目的反馈（pick、nope、remix、confirm）以及结果事件（view、click、purchase、return、complaint、fulfilled、late_delivery）。所引用的每个对象都必须存在且彼此一致；merchant_id 和 product_id 由提案推导。remix 需要 payload.dimension 和 payload.value，并返回修订后的体验预览；confirm 关联到给定的匹配令牌，或该提案最新的令牌。SLA 与信誉基于这些事件计算（见 docs/EXPERIENCE.md）。',
  'The stored event.': '已存储的事件。',
  'event_type is missing or not one of the supported types.': 'event_type 缺失或不是受支持的类型之一。',
  'A field is invalid, a remix lacks a remixable payload.dimension or a payload.value, or confirm/fulfilled/late_delivery name no proposal.':
    '某个字段无效，remix 缺少可改编的 payload.dimension 或 payload.value，或 confirm/fulfilled/late_delivery 未指明提案。',
  'No catalog product with this id.': '目录中不存在该 id 的商品。',
  'product_id differs from the product of the proposal.': 'product_id 与提案中的商品不一致。',
  'confirm without match_token_id on a proposal that has no match token.': '未提供 match_token_id 的 confirm，且该提案尚无匹配令牌。',
  'Proactive experience feed for a shopper agent': '面向购物智能体的主动体验推荐流',
  "Catalog products as experience cards, ranked by fit with the agent's taste profile (derived from its pick, confirm, purchase, nope, return and complaint events, merged with the taste_profile sent; explicit members win) and its inspiration refs, with creator evidence breaking near-ties. Products whose latest taste event is negative are left out. Deterministic: the same input over the same events gives the same items in the same order and the same feed_id.":
    '以体验卡片呈现的目录商品，按与智能体口味画像（由其 pick、confirm、purchase、nope、return 和 complaint 事件推导，并与请求中的 taste_profile 合并；显式给出的成员优先）及灵感引用的契合度排序，分数接近时由创作者证据决定先后。最近一次口味事件为负面的商品会被排除。结果确定：相同输入在相同事件上得到相同顺序的相同条目和相同的 feed_id。',
  'The feed.': '推荐流。',
  'agent_id missing, or a field is invalid (limit 1..24).': '缺少 agent_id，或某个字段无效（limit 为 1..24）。',
  // schemas
  'Suggested values; any short text is accepted as a remix value.': '建议取值；任何简短文本都可作为改编取值。',
  '`referenced` when the merchant supplied its own preview asset (kept verbatim in asset), else `generated` from the catalog image and the context.':
    '商家提供了自己的预览素材时为 `referenced`（原样保存在 asset 中），否则为根据目录图片和上下文生成的 `generated`。',
  'A render prompt composed from the dimensions above; nothing is rendered by the gateway.': '由上述维度组合而成的渲染提示词；网关本身不做任何渲染。',
  '0 as submitted; each remix adds one.': '提交时为 0；每次改编加一。',
  'One sentence built from `data` and nothing else.': '仅根据 `data` 生成的一句话。',
  'The numbers and words the statement was built from.': '生成该陈述所依据的数字和词语。',
  'The offer price (proposal) or the catalog price (feed).': '报价价格（提案）或目录价格（推荐流）。',
  'USD.': '美元。',
  'Up to 3 videos of the product with orders, by conversion_score, then GMV.': '该商品最多 3 个有订单的视频，依次按 conversion_score、GMV 排序。',
  'Only what the product, offer, creator numbers, context or taste data support.': '仅包含商品、报价、创作者数据、上下文或口味数据所支持的内容。',
  'Facts that speak against the fit (over budget, region not served).': '不利于契合的事实（超出预算、不销售到该地区）。',
  'POST the event (with a value) to /v1/decision-events.': '将该事件（填入取值）POST 到 /v1/decision-events。',
  'The experience_card object the merchant submitted, kept verbatim.': '商家提交的 experience_card 对象，原样保存。',
  'Anything else, or none, is 400 unsupported_decision_event.': '其他取值或缺失时返回 400 unsupported_decision_event。',
  'A catalog product without a proposal (experience feed items); derived from the proposal otherwise.': '没有提案时引用的目录商品（体验推荐流条目）；否则由提案推导。',
  'The shopper agent whose taste the event tells about; also accepted as payload.agent_id.': '该事件所反映口味的购物智能体；也可通过 payload.agent_id 提供。',
  "remix needs dimension (one of the preview's remixable dimensions) and value.": 'remix 需要 dimension（预览可改编维度之一）和 value。',
  'The merchant of the proposal; what SLA and reputation read.': '提案所属商家；SLA 与信誉据此读取。',
  'remix only: the preview after the remix (also stored in payload).': '仅 remix：改编后的预览（同时保存在 payload 中）。',
  'Level-1 or level-2 catalog category names.': '一级或二级目录类目名称。',
  'Items, 1..24, default 6.': '条目数，1..24，默认 6。',
  'Content hash of the request and the item ids: the same input over the same events gives the same id.': '请求与条目 id 的内容哈希：相同输入在相同事件上得到相同的 id。',
  'Taste events of the agent read (pick, confirm, purchase, nope, return, complaint).': '读取到的该智能体口味事件数（pick、confirm、purchase、nope、return、complaint）。',
  'Products whose latest taste event is negative.': '最近一次口味事件为负面的商品。',
  // proposal fields (docs/MATCHING.md)
  "The merchant's own preview asset (e.g. {type, url}); kept verbatim as the asset of a referenced experience_preview.": '商家自己的预览素材（例如 {type, url}）；原样作为 referenced 类型 experience_preview 的素材保存。',
  'Kept verbatim in experience_card.merchant_supplied; the card itself is built by the gateway.': '原样保存在 experience_card.merchant_supplied 中；卡片本身由网关生成。',
  'ExperiencePreview built at submission (empty for catalog proposals of GET /v1/recommend).': '提交时生成的 ExperiencePreview（GET /v1/recommend 的目录提案为空）。',
  'ExperienceCard built at submission from the product, its creator evidence and the intent (empty for catalog proposals of GET /v1/recommend).':
    '提交时根据商品、其创作者证据和意图生成的 ExperienceCard（GET /v1/recommend 的目录提案为空）。',
};
