/**
 * Localized views of the OpenAPI document. English is the source; other locales translate the
 * `summary` and `description` texts only, so paths, methods and field names are identical. Every
 * phrase used in a route's summary must have a translation here (a test checks it).
 */
import { mandatesZhCN } from './routes/mandates.zh-CN';
import { dispatchZhCN } from './routes/dispatch.zh-CN';
import { cardsZhCN } from './routes/cards.zh-CN';
import { proofZhCN } from './routes/proof.zh-CN';
import { recommendZhCN } from './routes/recommend.zh-CN';
import { checkoutZhCN } from './routes/checkout.zh-CN';
import { runtimeZhCN } from './routes/runtime.zh-CN';
import { experienceZhCN } from './routes/experience.zh-CN';
import { merchantOpsZhCN } from './routes/merchant-ops.zh-CN';
import { reportsZhCN } from './routes/reports.zh-CN';
import { reconciliationZhCN } from './routes/reconciliation.zh-CN';
import { feedsZhCN } from './routes/feeds.zh-CN';

export const LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];

export const translations: Record<Exclude<Locale, 'en'>, Record<string, string>> = {
  'zh-CN': {
    // document
    'HTTP gateway between shopper-side (demand) agents and merchant-side (supply) agents: recommendations, intents, proposals, match sessions and tokens, checkout authorization, registries, experience commerce, supply operations and the developer console.':
      '购物方（需求侧）智能体与商家（供给侧）智能体之间的 HTTP 网关：推荐、意图、提案、匹配会话与匹配令牌、结账授权、注册表、体验式电商、供给运营以及开发者控制台。',
    'Error envelope used by every endpoint.': '所有接口使用的错误响应体。',
    'Machine-readable error code.': '机器可读的错误码。',
    'Human-readable explanation.': '人类可读的说明。',
    'Shortened display prefix of the key.': '用于展示的密钥缩略前缀。',
    'Console bearer token; shown only here.': '控制台 Bearer 令牌；仅在此处显示一次。',
    'The full API key. Shown once; store it now.': '完整的 API 密钥。仅显示一次，请立即保存。',
    // security schemes
    'API key issued in the developer console: Authorization: Bearer <API_KEY>.': '在开发者控制台签发的 API 密钥：Authorization: Bearer <API_KEY>。',
    'Developer console session token returned by register and login.': '注册和登录时返回的开发者控制台会话令牌。',
    'Supply/admin key.': '供给侧/管理员密钥。',
    'Registration token of a merchant agent.': '商家智能体的注册令牌。',
    'Registration token of a commerce agent.': '商务智能体的注册令牌。',
    // common error rows
    'The request failed validation; `fields` names what is wrong.': '请求未通过校验；`fields` 指出出错的字段。',
    'Missing, invalid, revoked or deleted API key.': 'API 密钥缺失、无效、已吊销或已删除。',
    'The API key lacks the scope this operation needs.': 'API 密钥缺少此操作所需的权限范围。',
    'Missing or invalid developer session token.': '开发者会话令牌缺失或无效。',
    'Invalid or missing supply key.': '供给密钥无效或缺失。',
    'Invalid or missing supply key or API key.': '供给密钥或 API 密钥无效或缺失。',
    'Too many requests; retry after the Retry-After header (seconds).': '请求过多；请在 Retry-After 头（秒）之后重试。',
    'The body is not valid JSON, or nests deeper than 64 levels.': '请求体不是合法的 JSON，或嵌套超过 64 层。',
    'The body does not match its Content-Encoding.': '请求体与其 Content-Encoding 不符。',
    'The body exceeds 1 MB.': '请求体超过 1 MB。',
    'The body is not application/json.': '请求体不是 application/json。',
    'A path parameter cannot name anything (wrong shape or length).': '路径参数无法指向任何资源（格式或长度不符）。',
    // service
    'Liveness of the gateway and its dependencies': '网关及其依赖的存活状态',
    '200 when Postgres and Temporal both answer, 503 otherwise.': 'Postgres 与 Temporal 均可响应时返回 200，否则返回 503。',
    'Postgres and Temporal answer.': 'Postgres 与 Temporal 均可响应。',
    'Postgres or Temporal does not answer.': 'Postgres 或 Temporal 无响应。',
    'Machine-readable contract (OpenAPI 3.0.3)': '机器可读的接口契约（OpenAPI 3.0.3）',
    'Query locale selects the language of descriptions (en, zh-CN); paths, methods and field names are identical in every locale.':
      '查询参数 locale 选择描述语言（en、zh-CN）；各语言下的路径、方法和字段名完全一致。',
    'The OpenAPI document.': 'OpenAPI 文档。',
    'A2A Agent Card of the gateway': '网关的 A2A 智能体名片',
    'The Agent Card.': '智能体名片。',
    'Public keys for match tokens and intent mandates': '匹配令牌与意图授权书的公钥',
    'JSON Web Key Set.': 'JSON Web 密钥集。',
    'Skill document for agents': '面向智能体的技能文档',
    'The skill document (Markdown).': '技能文档（Markdown）。',
    'No such skill.': '不存在该技能。',
    'Intent-matching protocol note (v0.2)': '意图匹配协议说明（v0.2）',
    'The protocol note (Markdown).': '协议说明（Markdown）。',
    'Check an API key': '校验 API 密钥',
    'The cheapest authenticated call: proves the key works and says what it grants.': '开销最低的鉴权调用：证明密钥可用并说明其授予的权限。',
    'The key is valid.': '密钥有效。',
    // developer console
    'Register a developer account': '注册开发者账号',
    'Creates the account and a console session. A valid invite_code verifies the invite at once; it may instead be verified after login.':
      '创建账号和控制台会话。有效的 invite_code 会立即完成邀请验证；也可以在登录后再验证。',
    'Account created.': '账号已创建。',
    'A developer account already exists for this email.': '该邮箱已存在开发者账号。',
    'Log in to the developer console': '登录开发者控制台',
    'Logged in; a new console session.': '已登录；新的控制台会话。',
    'Invalid email or password.': '邮箱或密码错误。',
    'Current developer, session and keys': '当前开发者、会话与密钥',
    'The signed-in developer.': '已登录的开发者。',
    'Verify an invite code': '验证邀请码',
    'Invite verified.': '邀请已验证。',
    'The invite code is not valid.': '邀请码无效。',
    'List API keys': '列出 API 密钥',
    'Active and revoked keys of the developer, newest first. Deleted keys are kept for audit but not listed.':
      '开发者的有效和已吊销密钥，按时间倒序。已删除的密钥为审计保留，但不列出。',
    'The keys.': '密钥列表。',
    'Create an API key': '创建 API 密钥',
    'Returns the full api_key once. The service stores its hash for authentication and, when encrypted key storage is configured, an AES-256-GCM copy for reveal.':
      '仅返回一次完整的 api_key。服务保存其哈希用于鉴权；配置了加密存储时，另存一份 AES-256-GCM 密文用于再次查看。',
    'Key created.': '密钥已创建。',
    'Verify an invite code before creating API keys.': '创建 API 密钥前请先验证邀请码。',
    'Rename an API key': '重命名 API 密钥',
    'Key renamed.': '密钥已重命名。',
    'API key not found.': '未找到 API 密钥。',
    'Revoke an API key (deprecated)': '吊销 API 密钥（已弃用）',
    'Deprecated: use DELETE /v1/developers/keys/{keyId}. The key stops authenticating; revoked_at is set.':
      '已弃用：请使用 DELETE /v1/developers/keys/{keyId}。密钥停止鉴权，并设置 revoked_at。',
    'Key revoked.': '密钥已吊销。',
    'Delete an API key': '删除 API 密钥',
    'The key stops authenticating immediately; the record is retained for audit and request-log joins.':
      '密钥立即停止鉴权；记录会保留用于审计和请求日志关联。',
    'Key deleted.': '密钥已删除。',
    'Reveal the full API key': '查看完整 API 密钥',
    'Decrypts the stored copy. Changes no state.': '解密存储的副本，不改变任何状态。',
    'The full key.': '完整密钥。',
    'Full key unavailable for older hash-only keys.': '仅存哈希的旧密钥无法查看完整密钥。',
    'Request logs of your API keys': '你的 API 密钥的请求日志',
    'Newest first.': '按时间倒序。',
    'Log entries.': '日志条目。',
    // merchant registry
    'A required field is missing; `fields` names it.': '缺少必填字段；`fields` 指出缺少的字段。',
    'Register or update a merchant agent': '注册或更新商家智能体',
    "Creates the merchant (created:true) and returns its registration_token and webhook_secret once. Registering an existing merchant_id updates it (created:false) and needs that merchant's X-Merchant-Token.":
      '创建商家（created:true），并仅此一次返回其 registration_token 和 webhook_secret。对已存在的 merchant_id 再次注册即为更新（created:false），需要该商家的 X-Merchant-Token。',
    'Registered or updated.': '已注册或已更新。',
    'Look up a merchant agent': '查询商家智能体',
    'The merchant record.': '商家记录。',
    'Merchant agent heartbeat': '商家智能体心跳',
    'Refreshes last_seen_at.': '刷新 last_seen_at。',
    'The refreshed record.': '刷新后的记录。',
    'Deactivate a merchant agent': '停用商家智能体',
    'Sets status `inactive` and deactivated_at; repeating it keeps the first deactivated_at. Registering again reactivates.':
      '将状态设为 `inactive` 并设置 deactivated_at；重复调用保留首次的 deactivated_at。重新注册即可重新启用。',
    'The deactivated record.': '停用后的记录。',
    'Probe a merchant agent endpoint': '探测商家智能体端点',
    'One bounded GET of agent_endpoint (at most 3 s). 2xx or 405 is healthy; otherwise 503 with reason unreachable, timeout, bad_status, inactive or unsafe_endpoint. Every result is stored for SLA reports.':
      '对 agent_endpoint 发起一次有时限的 GET（最多 3 秒）。2xx 或 405 视为健康；否则返回 503，原因为 unreachable、timeout、bad_status、inactive 或 unsafe_endpoint。每次结果都会保存，供 SLA 报表使用。',
    'Healthy.': '健康。',
    'Unhealthy or unreachable.': '不健康或不可达。',
    'Agent readiness score of a merchant': '商家的智能体就绪度评分',
    'Scores four checks of 25 points: workflow context, committed proposal contract, trust evidence policy, MatchToken attribution. next_upgrade names the most valuable missing check.':
      '四项检查各 25 分：工作流上下文、承诺型提案契约、信任证据策略、MatchToken 归因。next_upgrade 指出最有价值的缺失项。',
    'The readiness assessment.': '就绪度评估结果。',
    'No merchant agent with this id.': '不存在该 ID 的商家智能体。',
    'Missing registration token (X-Merchant-Token).': '缺少注册令牌（X-Merchant-Token）。',
    'Invalid registration token.': '注册令牌无效。',
    'Updating an existing merchant needs its X-Merchant-Token.': '更新已存在的商家需要其 X-Merchant-Token。',
    'The endpoint is not https or resolves to a private, loopback or link-local address.': '端点不是 https，或解析到私有、回环或链路本地地址。',
    'HTTPS webhook URL of the merchant agent (Intent.Surge deliveries go here).': '商家智能体的 HTTPS Webhook 地址（Intent.Surge 投递到此）。',
    'Secret for X-Merchant-Token. Returned only here.': 'X-Merchant-Token 使用的密钥，仅在此处返回。',
    '`whsec_…` secret that signs Intent.Surge deliveries (Standard Webhooks).': '用于签名 Intent.Surge 投递的 `whsec_…` 密钥（Standard Webhooks）。',
    'The workflow the agent lives in, e.g. `shopify_checkout` or `concierge_chat`.': '智能体所在的工作流，例如 `shopify_checkout` 或 `concierge_chat`。',
    'Intent shapes it answers, e.g. `product_search`, `bundle`, `replenishment`.': '它能响应的意图形态，例如 `product_search`、`bundle`、`replenishment`。',
    'Intent fields it needs before it can quote, e.g. `budget`, `region`, `size`.': '报价前需要的意图字段，例如 `budget`、`region`、`size`。',
    'Evidence sources it accepts, e.g. `community`, `reddit`, `verified_reviews`.': '它接受的证据来源，例如 `community`、`reddit`、`verified_reviews`。',
    '`committed`: a proposal is a binding quote until valid_until.': '`committed`：提案在 valid_until 之前是有约束力的报价。',
    '`match_token`: orders are attributed through the signed match token.': '`match_token`：订单通过签名的匹配令牌归因。',
    'On an update: issue a new webhook_secret (the old one stops signing at once).': '更新时：签发新的 webhook_secret（旧密钥立即停止用于签名）。',
    'On an update: issue a new registration_token; the one sent in the header stops working at once.': '更新时：签发新的 registration_token；请求头中发送的旧令牌立即失效。',
    // commerce agent registry
    'Register or update a commerce agent': '注册或更新商务智能体',
    "agent_id, agent_type and endpoint are required. capability_profile is grouped by agent kind and validated for the agent's own kind. 201 when created; an existing agent_id is updated (200) with its X-Agent-Token.":
      'agent_id、agent_type 和 endpoint 为必填。capability_profile 按智能体类型分组，并按该智能体自身的类型校验。新建返回 201；已存在的 agent_id 凭其 X-Agent-Token 更新（200）。',
    'Created.': '已创建。',
    'Existing registration updated.': '已更新现有注册。',
    'Import an A2A Agent Card': '导入 A2A Agent Card',
    'Send exactly one of agent_card (inline) or agent_card_url (fetched over https: 5 s, 256 KiB, 3 redirects, every hop checked). v0.3 and v1.0 cards are read; skills, interfaces, security schemes and extensions (AP2 roles included) are mapped into capability_profile.a2a and the agent is registered.':
      'agent_card（内联）与 agent_card_url（通过 https 获取：5 秒、256 KiB、3 次重定向，每一跳都会检查）二者只能且必须提供其一。支持 v0.3 与 v1.0 卡片；技能、接口、安全方案和扩展（包括 AP2 角色）映射到 capability_profile.a2a，并注册该智能体。',
    'Imported and registered.': '已导入并注册。',
    'Existing registration updated from the card.': '已根据卡片更新现有注册。',
    'Neither agent_card nor agent_card_url was sent.': '既未提供 agent_card 也未提供 agent_card_url。',
    'The card does not have the A2A Agent Card shape; `fields` names the member.': '卡片不符合 A2A Agent Card 结构；`fields` 指出出错的成员。',
    'The card URL could not be fetched: unreachable, timeout, non-2xx, too large, too many redirects or not JSON.': '无法获取卡片 URL：不可达、超时、非 2xx、过大、重定向过多或不是 JSON。',
    'Updating an existing agent needs its X-Agent-Token.': '更新已存在的智能体需要其 X-Agent-Token。',
    'X-Agent-Token required.': '需要 X-Agent-Token。',
    'List commerce agents': '列出商务智能体',
    'Agents, oldest registration first.': '智能体列表，最早注册的在前。',
    'Fetch a commerce agent': '获取商务智能体',
    'The agent record.': '智能体记录。',
    'No commerce agent with this id.': '不存在该 ID 的商务智能体。',
    'Commerce agent heartbeat': '商务智能体心跳',
    'Deactivate a commerce agent': '停用商务智能体',
    'Sets status `inactive` and deactivated_at; registering again reactivates.': '将状态设为 `inactive` 并设置 deactivated_at；重新注册即可重新启用。',
    'Secret for X-Agent-Token. Returned only by register and import-card.': 'X-Agent-Token 使用的密钥，仅由注册和 import-card 返回。',
    'Grouped by agent kind: `{"<agent_type>": {...}}` validated per kind; `a2a` holds an imported Agent Card.': '按智能体类型分组：`{"<agent_type>": {...}}`，按类型校验；`a2a` 存放导入的 Agent Card。',
    'The Agent Card JSON (A2A v0.3 or v1.0 field set).': 'Agent Card JSON（A2A v0.3 或 v1.0 字段集）。',
    'HTTPS URL the card is fetched from, e.g. https://agent.example/.well-known/agent-card.json.': '获取卡片的 HTTPS 地址，例如 https://agent.example/.well-known/agent-card.json。',
    'Defaults to a slug of the card host and name.': '默认取卡片主机名与名称的 slug。',
    'Defaults to the AP2 role in the card, else service_core.': '默认取卡片中的 AP2 角色，否则为 service_core。',
    // intents, proposals, match sessions, match tokens
    'Create a shopping intent': '创建购物意图',
    'raw_query is required. Missing structure is read from the text: a normalized query, tags, a budget ("under $50") and a region ("in Canada"); resolution_summary says what was derived.':
      'raw_query 为必填。缺少的结构化信息从文本中解析：规范化查询、标签、预算（"under $50"）和地区（"in Canada"）；resolution_summary 说明推导了哪些内容。',
    'The intent.': '意图。',
    'Get an intent': '获取意图',
    'No intent with this id.': '不存在该 ID 的意图。',
    'List the proposals of an intent': '列出意图的提案',
    "Oldest first. Expired proposals are left out unless include_expired=true. The intent's developer sees every proposal; a merchant (X-Merchant-Token) the intent was sent to sees only its own.":
      '按时间先后排列。除非 include_expired=true，否则不包含已过期的提案。意图所属的开发者可看到全部提案；收到该意图的商家（X-Merchant-Token）只能看到自己的提案。',
    "Readable by the keys of the developer that created it, and by a merchant the intent was dispatched to (or that proposed to it) when the call carries that merchant's X-Merchant-Token; anyone else gets 404 intent_not_found.":
      '创建它的开发者的密钥可读取；意图已分发到（或已对其提案）的商家在请求携带其 X-Merchant-Token 时也可读取；其他人得到 404 intent_not_found。',
    "Readable by the keys of the intent's developer and by the merchant that submitted it (X-Merchant-Token); anyone else gets 404 proposal_not_found.":
      '意图所属开发者的密钥以及提交该提案的商家（X-Merchant-Token）可读取；其他人得到 404 proposal_not_found。',
    'X-Merchant-Token is not the registration token of any merchant.': 'X-Merchant-Token 不是任何商家的注册令牌。',
    'The proposals.': '提案列表。',
    'Submit a merchant proposal for an intent': '为意图提交商家提案',
    'Needs the X-Merchant-Token of merchant_agent_id. The merchant may answer an intent that was dispatched to it or whose tags, region and categories meet its subscription (the Intent.Surge rule); any other intent is 404 intent_not_found. The product must exist in the catalog; its card is frozen into product_snapshot and a trust_score is computed with its basis. proposal_state starts as quoted (or draft).':
      '需要 merchant_agent_id 对应的 X-Merchant-Token。商家可回应已分发给它的意图，或标签、地区和品类符合其订阅的意图（Intent.Surge 规则）；其他意图返回 404 intent_not_found。商品必须存在于目录中；其信息冻结到 product_snapshot，并计算 trust_score 及其依据。proposal_state 初始为 quoted（或 draft）。',
    'The proposal.': '提案。',
    'The token is not the registration token of merchant_agent_id.': '该令牌不是 merchant_agent_id 的注册令牌。',
    'No catalog product with this id.': '目录中不存在该 ID 的商品。',
    'The merchant is deactivated.': '该商家已停用。',
    'Get a proposal': '获取提案',
    'No proposal with this id.': '不存在该 ID 的提案。',
    'Create a match session': '创建匹配会话',
    'Ranks the named proposals of the intent (or all its active ones) by price fit, trust, inventory, shipping, evidence and commission; ranked_proposals carries each score breakdown and summary the explanation.':
      '按价格匹配度、信任、库存、配送、证据和佣金对意图的指定提案（或全部有效提案）排序；ranked_proposals 含每个提案的得分明细，summary 含解释。',
    'The ranked session.': '已排序的会话。',
    'A named proposal does not exist for this intent.': '指定的提案不属于该意图或不存在。',
    'Get a rendered match session': '获取渲染后的匹配会话',
    'The session, its top `limit` ranked proposals (1..10, default 5; match_session.ranked_proposals is cut to the same top), its match tokens, and a Product Card Document for each of those proposals.':
      '会话本身、排名前 `limit` 的提案（1..10，默认 5；match_session.ranked_proposals 也截取同样的前几名）、其匹配令牌，以及这些提案对应的商品卡片文档。',
    'The rendered session.': '渲染后的会话。',
    'No match session with this id.': '不存在该 ID 的匹配会话。',
    'Accept a ranked proposal for a match token': '接受已排序的提案以获取匹配令牌',
    'Body required: `proposal_id` (default: the best ranked) mints a match token, or `match_token_id` confirms an existing one. Accepting the same proposal again returns the same token. The token lives MATCH_TOKEN_TTL_S (30 min) and carries a signed JWS.':
      '必须提供请求体：`proposal_id`（默认排名第一）签发匹配令牌，或 `match_token_id` 确认已有令牌。再次接受同一提案返回同一令牌。令牌有效期为 MATCH_TOKEN_TTL_S（30 分钟），并带有签名的 JWS。',
    'The match token.': '匹配令牌。',
    'No match token with this id in this session.': '该会话中不存在该 ID 的匹配令牌。',
    'The match session has expired.': '匹配会话已过期。',
    'Nothing was ranked in this session.': '该会话没有任何已排序的提案。',
    'The proposal was not ranked in this session.': '该提案未在此会话中参与排序。',
    'The proposal has expired.': '该提案已过期。',
    'The match token has expired.': '匹配令牌已过期。',
    'Get a match token': '获取匹配令牌',
    'No match token with this id.': '不存在该 ID 的匹配令牌。',
    'Authorize payment against a match token': '基于匹配令牌授权支付',
    'Succeeds only for an existing, unexpired token in state accepted whose proposal is pending confirmation and matches proposal_id, expected_amount and currency when given. The token moves to payment_authorized and the proposal to accepted; repeating returns the same authorization.':
      '仅当令牌存在、未过期、状态为 accepted，且其提案处于待确认状态并与给定的 proposal_id、expected_amount 和 currency 一致时成功。令牌进入 payment_authorized，提案进入 accepted；重复调用返回同一授权。',
    'Payment authorized.': '支付已授权。',
    "No such match token (also another developer's token: it is not there for this caller).": '不存在该匹配令牌（其他开发者的令牌同样如此：对该调用方而言不存在）。',
    'The token is not in state accepted.': '令牌状态不是 accepted。',
    'proposal_id is not the proposal the token names.': 'proposal_id 与令牌所指的提案不一致。',
    'The proposal is not pending confirmation.': '提案不处于待确认状态。',
    'expected_amount differs from the proposal price.': 'expected_amount 与提案价格不一致。',
    'currency differs from the proposal currency.': 'currency 与提案币种不一致。',
    'Spend range in major units; `max` is the hard ceiling used by ranking.': '以主币种单位表示的消费区间；`max` 是排序使用的硬上限。',
    'Latest acceptable delivery time.': '可接受的最晚送达时间。',
    'Skill / MCP / A2A execution context, kept for replay and governance.': 'Skill / MCP / A2A 执行上下文，用于重放和治理。',
    'Submit as a draft (not ranked) or as a quote (default).': '以草稿（不参与排序）或报价（默认）提交。',
    'Defaults from the catalog stock.': '默认根据目录库存推断。',
    'Share of the sale, 0..1.': '销售额分成比例，0..1。',
    'e.g. review, community_post, certification, test_report': '例如 review、community_post、certification、test_report',
    'Absent: every active proposal of the intent.': '缺省时：该意图的全部有效提案。',
    'Compact JWS (EdDSA) over ids, amount, currency and expiry; keys at /.well-known/jwks.json.': '对各 ID、金额、币种和过期时间签名的紧凑 JWS（EdDSA）；公钥见 /.well-known/jwks.json。',
    ...mandatesZhCN,
    ...dispatchZhCN,
    ...cardsZhCN,
    ...proofZhCN,
    ...recommendZhCN,
    ...checkoutZhCN,
    ...runtimeZhCN,
    ...experienceZhCN,
    ...merchantOpsZhCN,
    ...reportsZhCN,
    ...reconciliationZhCN,
    ...feedsZhCN,
  },
};

/** Replaces known English phrases inside every `summary` and `description`; keys stay untouched. */
export function translate<T>(doc: T, locale: Exclude<Locale, 'en'>): T {
  const dict = translations[locale];
  const phrases = Object.keys(dict).sort((a, b) => b.length - a.length);
  const tr = (text: string) => {
    if (dict[text]) return dict[text]!;
    let out = text;
    for (const p of phrases) if (out.includes(p)) out = out.split(p).join(dict[p]!);
    return out;
  };
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === 'object') {
      return Object.fromEntries(
        Object.entries(node).map(([k, v]) => [k, (k === 'summary' || k === 'description') && typeof v === 'string' ? tr(v) : walk(v)]),
      );
    }
    return node;
  };
  return walk(doc) as T;
}
