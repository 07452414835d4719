import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the system routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const systemZhCN: LocaleTexts = {
  operations: {
    getHealthz: {
      summary: '网关及其依赖的存活状态',
      description:
        'Postgres 与 Temporal 均可响应时返回 200，否则返回 503；2 秒内作答（每项检查 1.5 秒）。`worker` 表示是否有 worker 在轮询任务队列（DescribeTaskQueue）：没有时各流程会等待。',
      responses: {
        '200': 'Postgres 与 Temporal 均可响应。',
        '503': 'Postgres 或 Temporal 无响应。',
      },
    },
    getOpenapiJson: {
      summary: '机器可读的接口契约（OpenAPI 3.0.3）',
      description: '查询参数 locale 选择描述语言（en、zh-CN）；各语言下的路径、方法和字段名完全一致。',
      responses: {
        '200': 'OpenAPI 文档。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getWellKnownAgentCardJson: {
      summary: '网关的 A2A 智能体名片',
      responses: {
        '200': '智能体名片。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getWellKnownJwksJson: {
      summary: '匹配令牌与意图授权书的公钥',
      responses: {
        '200': 'JSON Web 密钥集。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getSkillsSkillNameSKILLMd: {
      summary: '面向智能体的技能文档',
      responses: {
        '200': '技能文档（Markdown）。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '404': '`not_found`: 不存在该技能。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getDocsINTENTMATCHINGPROTOCOLMd: {
      summary: '意图匹配协议说明（v0.2）',
      responses: {
        '200': '协议说明（Markdown）。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1Whoami: {
      summary: '校验 API 密钥',
      description: '开销最低的鉴权调用：证明密钥可用并说明其授予的权限。',
      responses: {
        '200': '密钥有效。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
  },
};
