import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the agents routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const agentsZhCN: LocaleTexts = {
  operations: {
    postV1AgentsRegister: {
      summary: '注册或更新商务智能体',
      description:
        'agent_id、agent_type 和 endpoint 为必填。capability_profile 按智能体类型分组，并按该智能体自身的类型校验。新建返回 201；已存在的 agent_id 凭其 X-Agent-Token 更新（200）。除 schema 所述之外：endpoint 必须为 https 且只解析到公网地址，这取决于 DNS 应答（400 invalid_endpoint）。',
      responses: {
        '200': '已更新现有注册。',
        '201': '已创建。',
        '400':
          '`missing_fields`: 缺少必填字段；`fields` 指出该字段。 `invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_endpoint`: 端点不是 https，或解析到私有、回环或链路本地地址。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。 `agent_token_required`: 更新已存在的智能体需要其 X-Agent-Token。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。 `invalid_registration_token`: 注册令牌无效。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1AgentsImportCard: {
      summary: '导入 A2A Agent Card',
      description:
        'agent_card（内联）与 agent_card_url（通过 https 获取：5 秒、256 KiB、3 次重定向，每一跳都会检查）二者只能且必须提供其一。支持 v0.3 与 v1.0 卡片；技能、接口、安全方案和扩展（包括 AP2 角色）映射到 capability_profile.a2a，并注册该智能体。除 schema 所述之外：卡片必须符合 A2A Agent Card 结构（400 invalid_agent_card），其端点必须只解析到公网地址（400 invalid_endpoint）。',
      responses: {
        '200': '已根据卡片更新现有注册。',
        '201': '已导入并注册。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `missing_fields`: 既未提供 agent_card 也未提供 agent_card_url。 `invalid_agent_card`: 卡片不符合 A2A Agent Card 结构；`fields` 指出出错的成员。 `invalid_endpoint`: 端点不是 https，或解析到私有、回环或链路本地地址。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。 `agent_token_required`: 更新已存在的智能体需要其 X-Agent-Token。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。 `invalid_registration_token`: 注册令牌无效。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
        '502': '`agent_card_fetch_failed`: 无法获取卡片 URL：不可达、超时、非 2xx、过大、重定向过多或不是 JSON。',
      },
    },
    getV1Agents: {
      summary: '列出商务智能体',
      responses: {
        '200': '智能体列表，最早注册的在前。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1AgentsAgentId: {
      summary: '获取商务智能体',
      responses: {
        '200': '智能体记录。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`agent_not_found`: 不存在该 ID 的商务智能体。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1AgentsAgentIdHeartbeat: {
      summary: '商务智能体心跳',
      description: '刷新 last_seen_at。',
      responses: {
        '200': '刷新后的记录。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。 `agent_token_required`: 需要 X-Agent-Token。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。 `invalid_registration_token`: 注册令牌无效。',
        '404': '`agent_not_found`: 路径参数无法指向任何资源（格式或长度不符）。 `agent_not_found`: 不存在该 ID 的商务智能体。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1AgentsAgentIdDeactivate: {
      summary: '停用商务智能体',
      description: '将状态设为 `inactive` 并设置 deactivated_at；重新注册即可重新启用。',
      responses: {
        '200': '停用后的记录。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。 `agent_token_required`: 需要 X-Agent-Token。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。 `invalid_registration_token`: 注册令牌无效。',
        '404': '`agent_not_found`: 路径参数无法指向任何资源（格式或长度不符）。 `agent_not_found`: 不存在该 ID 的商务智能体。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
  },
  schemas: {
    AgentRegisterResponse: {
      registration_token: 'X-Agent-Token 使用的密钥，仅由注册和 import-card 返回。',
    },
    CommerceAgent: {
      capability_profile: '按智能体类型分组：`{"<agent_type>": {...}}`，按类型校验；`a2a` 存放导入的 Agent Card。',
    },
    AgentRegisterRequest: {
      capability_profile: '按智能体类型分组：`{"<agent_type>": {...}}`，按类型校验；`a2a` 存放导入的 Agent Card。',
      rotate_registration_token: '更新时：签发新的 registration_token；请求头中发送的旧令牌立即失效。',
    },
    AgentImportCardRequest: {
      agent_card: 'Agent Card JSON（A2A v0.3 或 v1.0 字段集）。',
      agent_card_url: '获取卡片的 HTTPS 地址，例如 https://agent.example/.well-known/agent-card.json。',
      agent_id: '默认取卡片主机名与名称的 slug。',
      agent_type: '默认取卡片中的 AP2 角色，否则为 service_core。',
    },
  },
};
