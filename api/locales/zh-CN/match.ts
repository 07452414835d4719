import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the match routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const matchZhCN: LocaleTexts = {
  operations: {
    postV1Match: {
      summary: '创建匹配会话',
      description:
        '按价格匹配度、信任、库存、配送、证据和佣金对意图的指定提案（或全部有效提案）排序；ranked_proposals 含每个提案的得分明细，summary 含解释。',
      responses: {
        '201': '已排序的会话。',
        '400':
          '`missing_fields`: 缺少必填字段；`fields` 指出该字段。 `invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`intent_not_found`: 不存在该 id 的意图。 `proposal_not_found`: 指定的提案不属于该意图或不存在。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1MatchMatchSessionId: {
      summary: '获取渲染后的匹配会话',
      description:
        '会话本身、排名前 `limit` 的提案（1..10，默认 5；match_session.ranked_proposals 也截取同样的前几名）、其匹配令牌，以及这些提案对应的商品卡片文档。',
      responses: {
        '200': '渲染后的会话。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`match_not_found`: 不存在该 ID 的匹配会话。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1MatchMatchSessionIdAccept: {
      summary: '接受已排序的提案以获取匹配令牌',
      description:
        '必须提供请求体：`proposal_id`（默认排名第一）签发匹配令牌，或 `match_token_id` 确认已有令牌。再次接受同一提案返回同一令牌。令牌有效期为 MATCH_TOKEN_TTL_S（30 分钟），并带有签名的 JWS。',
      responses: {
        '200': '匹配令牌。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404':
          '`match_not_found`: 不存在该 ID 的匹配会话。 `proposal_not_found`: 不存在该 id 的提案。 `match_token_not_found`: 该会话中不存在该 ID 的匹配令牌。',
        '409':
          '`match_session_expired`: 匹配会话已过期。 `no_ranked_proposals`: 该会话没有任何已排序的提案。 `proposal_not_in_session`: 该提案未在此会话中参与排序。 `proposal_expired`: 该提案已过期。 `match_token_expired`: 该匹配令牌已过期。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1MatchTokensMatchTokenId: {
      summary: '获取匹配令牌',
      responses: {
        '200': '匹配令牌。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`match_token_not_found`: 不存在该 id 的匹配令牌。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1MatchTokensMatchTokenIdPaymentAuthorization: {
      summary: '基于匹配令牌授权支付',
      description:
        '仅当令牌存在、未过期、状态为 accepted，且其提案处于待确认状态并与给定的 proposal_id、expected_amount 和 currency 一致时成功。令牌进入 payment_authorized，提案进入 accepted；重复调用返回同一授权。',
      responses: {
        '200': '支付已授权。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`not_found`: 路径参数无法指向任何资源（格式或长度不符）。',
        '409':
          '`match_token_invalid`: 不存在该匹配令牌（其他开发者的令牌同样如此：对该调用方而言不存在）。 `match_token_expired`: 该匹配令牌已过期。 `acceptance_state_invalid`: 令牌状态不是 accepted。 `proposal_mismatch`: proposal_id 与令牌所指的提案不一致。 `proposal_expired`: 该提案已过期。 `proposal_state_invalid`: 提案不处于待确认状态。 `amount_mismatch`: expected_amount 与提案价格不一致。 `currency_mismatch`: currency 与提案币种不一致。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1PaymentAuthorizationsAuthorizationId: {
      summary: '获取支付授权',
      description:
        '支付授权及其状态：`authorized`，或 `voided`（附 voided_at 与 void_reason）：无法完成的结账释放了它（商家拒绝或始终未接受订单）、商家要求买方到其页面完成购买，或其匹配令牌在没有结账的情况下过期。id 为结账的 `payment_authorization_id`，或 POST /v1/match-tokens/{matchTokenId}/payment-authorization 的响应。其他开发者的授权视为不存在。',
      responses: {
        '200': '该支付授权。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`payment_authorization_not_found`: 不存在该 id 的支付授权。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
  },
  schemas: {
    MatchCreateRequest: {
      proposal_ids: '缺省时：该意图的全部有效提案。',
    },
    PaymentAuthorization: {
      voided_at: '撤销时间；仍处于授权状态时为 null。',
      void_reason:
        '撤销原因的文字说明：失败的结账及其代码（例如 `checkout chk_… failed: merchant_handoff_failed`）、商家要求买方到其页面完成购买，或令牌在没有结账的情况下过期；仍处于授权状态时为 null。',
    },
  },
};
