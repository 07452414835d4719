/** zh-CN translations of the mandate route texts (merged into openapi-locales). */
export const mandatesZhCN: Record<string, string> = {
  // route
  'Sign an intent mandate': '签署意图授权书',
  'Signs product_id, amount_limit, currency and expiry with the integration\'s RSA key: RS256 over the RFC 8785 canonical JSON of the payload. Returns the payload, its canonical text, a bare RSA-SHA256 signature (openssl-verifiable) and a compact JWS; the public key is in /.well-known/jwks.json. The body is validated first; 503 when signing is not enabled for the integration.':
    '使用该集成的 RSA 密钥签署 product_id、amount_limit、currency 与过期时间：对载荷的 RFC 8785 规范化 JSON 做 RS256 签名。返回载荷、其规范化文本、一个裸 RSA-SHA256 签名（可用 openssl 验证）以及一个紧凑 JWS；公钥发布在 /.well-known/jwks.json。先校验请求体；该集成未启用签名时返回 503。',
  'The signed mandate (stored for audit).': '已签署的授权书（已存档以供审计）。',
  'Signing unavailable for this integration (no mandate signing key configured).': '该集成不可用签名（未配置授权书签名密钥）。',
  "intent_id names no intent of the caller's developer.": 'intent_id 未指向调用方开发者的任何意图。',
  // request body
  'The product the mandate authorizes.': '授权书所授权的商品。',
  'Highest amount the holder may spend, in major units of currency; must be greater than 0.': '持有者可花费的最高金额，以 currency 的主单位计；必须大于 0。',
  'ISO 4217 currency code (upper case); default USD.': 'ISO 4217 货币代码（大写）；默认 USD。',
  'The intent this mandate belongs to, if any.': '该授权书所属的意图（如有）。',
  'Restricts the mandate to one merchant, if given.': '如提供，则将授权书限定于该商家。',
  'Lifetime in seconds (60 to 604800); default 3600.': '有效期（秒，60 至 604800）；默认 3600。',
  'Free-form JSON object (at most 4096 characters), signed with the rest of the payload.': '自由格式的 JSON 对象（最多 4096 个字符），与载荷其余部分一同签名。',
  'Unknown members are refused (400 invalid_body), so nothing the caller sent goes unsigned.': '未知字段会被拒绝（400 invalid_body），确保调用方发送的内容都会被签名。',
  // payload and mandate
  'Public base URL of the gateway that signed it.': '签发该授权书的网关的公开基础 URL。',
  'Developer account of the API key that requested it.': '请求签署的 API 密钥所属的开发者账号。',
  'Random, so two mandates never share a payload.': '随机值，确保任意两份授权书的载荷都不相同。',
  'What is signed, before canonicalization.': '被签名的内容（规范化之前）。',
  'RFC 8785 canonical JSON of payload: the exact bytes (UTF-8) that are signed.': '载荷的 RFC 8785 规范化 JSON：即被签名的确切字节（UTF-8）。',
  'base64url RSA-SHA256 (PKCS#1 v1.5) signature over canonical_payload; verify with openssl dgst -sha256 -verify.':
    '对 canonical_payload 的 base64url 编码 RSA-SHA256（PKCS#1 v1.5）签名；可用 openssl dgst -sha256 -verify 验证。',
  'Compact RS256 JWS whose payload is canonical_payload; verify with the key from /.well-known/jwks.json.':
    '载荷为 canonical_payload 的紧凑 RS256 JWS；用 /.well-known/jwks.json 中的密钥验证。',
  'Key id of the signing key in /.well-known/jwks.json.': '签名密钥在 /.well-known/jwks.json 中的密钥 ID。',
  'Where the public key is published.': '公钥的发布地址。',
  'A signed intent mandate.': '一份已签署的意图授权书。',
};
