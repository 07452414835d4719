import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the developers routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const developersZhCN: LocaleTexts = {
  operations: {
    postV1DevelopersRegister: {
      summary: '注册开发者账号',
      description: '创建账号和控制台会话。有效的 invite_code 会立即完成邀请验证；也可以在登录后再验证。',
      responses: {
        '201': '账号已创建。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '409': '`account_exists`: 该邮箱已存在开发者账号。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1DevelopersLogin: {
      summary: '登录开发者控制台',
      responses: {
        '200': '已登录；新的控制台会话。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_credentials`: 邮箱或密码错误。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1DevelopersMe: {
      summary: '当前开发者、会话与密钥',
      responses: {
        '200': '已登录的开发者。',
        '401': '`invalid_developer_token`: 开发者会话令牌缺失或无效。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1DevelopersInviteVerify: {
      summary: '验证邀请码',
      responses: {
        '200': '邀请已验证。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_developer_token`: 开发者会话令牌缺失或无效。',
        '403': '`invalid_invite_code`: 邀请码无效。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1DevelopersKeys: {
      summary: '列出 API 密钥',
      description: '开发者的有效和已吊销密钥，按时间倒序。已删除的密钥为审计保留，但不列出。',
      responses: {
        '200': '密钥列表。',
        '401': '`invalid_developer_token`: 开发者会话令牌缺失或无效。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1DevelopersKeys: {
      summary: '创建 API 密钥',
      description:
        '仅返回一次完整的 api_key。服务保存其哈希用于鉴权；配置了加密存储时，另存一份 AES-256-GCM 密文用于再次查看。带 Idempotency-Key 的重试返回同一个密钥（首次执行在应答前中断时，重试得到同一 key id 和新的密钥值），绝不创建第二个密钥。',
      responses: {
        '201': '密钥已创建。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_developer_token`: 开发者会话令牌缺失或无效。',
        '403': '`invite_verification_required`: 创建 API 密钥前请先验证邀请码。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
      fields: {
        '201.api_key': '完整的 API 密钥。仅显示一次，请立即保存。',
      },
    },
    patchV1DevelopersKeysKeyId: {
      summary: '重命名 API 密钥',
      responses: {
        '200': '密钥已重命名。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_developer_token`: 开发者会话令牌缺失或无效。',
        '404': '`api_key_not_found`: 未找到 API 密钥。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    deleteV1DevelopersKeysKeyId: {
      summary: '删除 API 密钥',
      description: '密钥立即停止鉴权；记录会保留用于审计和请求日志关联。',
      responses: {
        '200': '密钥已删除。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_developer_token`: 开发者会话令牌缺失或无效。',
        '404': '`api_key_not_found`: 未找到 API 密钥。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1DevelopersKeysKeyIdRevoke: {
      summary: '吊销 API 密钥（已弃用）',
      description: '已弃用：请使用 DELETE /v1/developers/keys/{keyId}。密钥停止鉴权，并设置 revoked_at。',
      responses: {
        '200': '密钥已吊销。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_developer_token`: 开发者会话令牌缺失或无效。',
        '404': '`api_key_not_found`: 未找到 API 密钥。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1DevelopersKeysKeyIdReveal: {
      summary: '查看完整 API 密钥',
      description: '解密存储的副本，不改变任何状态。',
      responses: {
        '200': '完整密钥。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_developer_token`: 开发者会话令牌缺失或无效。',
        '404': '`api_key_not_found`: 未找到 API 密钥。',
        '410': '`key_not_revealable`: 仅存哈希的旧密钥无法查看完整密钥。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1DevelopersLogs: {
      summary: '你的 API 密钥的请求日志',
      description: '按时间倒序。',
      responses: {
        '200': '日志条目。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_developer_token`: 开发者会话令牌缺失或无效。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
  },
  schemas: {
    DeveloperAuthResponse: {
      developer_token: '控制台 Bearer 令牌；仅在此处显示一次。',
    },
    ApiKey: {
      key_prefix: '用于展示的密钥缩略前缀。',
    },
  },
};
