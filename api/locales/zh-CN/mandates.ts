import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the mandates routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const mandatesZhCN: LocaleTexts = {
  operations: {
    postV1IntentMandatesSign: {
      summary: '签署意图授权书',
      description:
        '使用该集成的 RSA 密钥签署 product_id、amount_limit、currency 与过期时间：对载荷的 RFC 8785 规范化 JSON 做 RS256 签名。返回载荷、其规范化文本、一个裸 RSA-SHA256 签名（可用 openssl 验证）以及一个紧凑 JWS；公钥发布在 /.well-known/jwks.json。先校验请求体；该集成未启用签名时返回 503。',
      responses: {
        '201': '已签署的授权书（已存档以供审计）。',
        '400':
          '`invalid_body`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`intent_not_found`: intent_id 未指向调用方开发者的任何意图。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
        '503': '`signing_unavailable`: 该集成不可用签名（未配置授权书签名密钥）。',
      },
    },
  },
  schemas: {
    IntentMandate: {
      '': '一份已签署的意图授权书。',
      canonical_payload: '载荷的 RFC 8785 规范化 JSON：即被签名的确切字节（UTF-8）。',
      signature: '对 canonical_payload 的 base64url 编码 RSA-SHA256（PKCS#1 v1.5）签名；可用 openssl dgst -sha256 -verify 验证。',
      jws: '载荷为 canonical_payload 的紧凑 RS256 JWS；用 /.well-known/jwks.json 中的密钥验证。',
      kid: '签名密钥在 /.well-known/jwks.json 中的密钥 ID。',
      jwks_uri: '公钥的发布地址。',
    },
    IntentMandatePayload: {
      '': '被签名的内容（规范化之前）。',
      issuer: '签发该授权书的网关的公开基础 URL。',
      developer_id: '请求签署的 API 密钥所属的开发者账号。',
      nonce: '随机值，确保任意两份授权书的载荷都不相同。',
    },
    IntentMandateSignBody: {
      '': '未知字段会被拒绝（400 invalid_body），确保调用方发送的内容都会被签名。',
      product_id: '授权书所授权的商品。',
      amount_limit: '持有者可花费的最高金额，以 currency 的主单位计；必须大于 0。',
      currency: 'ISO 4217 货币代码（大写）；默认 USD。',
      intent_id: '该授权书所属的意图（如有）。',
      merchant_id: '如提供，则将授权书限定于该商家。',
      expires_in_s: '有效期（秒，60 至 604800）；默认 3600。',
      metadata: '自由格式的 JSON 对象（最多 4096 个字符），与载荷其余部分一同签名。',
    },
  },
};
