/**
 * Localized views of the OpenAPI document. English is the source; other locales translate the
 * `summary` and `description` texts only, so paths, methods and field names are identical. Every
 * phrase used in a route's summary must have a translation here (a test checks it).
 */
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
