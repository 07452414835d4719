import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the commerce-protocol routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const protocolsZhCN: LocaleTexts = {
  operations: {
    getUcpPlatformProfile: {
      summary: '网关的 UCP 平台档案（2026-04-08）',
      description:
        '网关向 UCP 商家发出的每个请求都在 `UCP-Agent` 中指向此档案：其中列出网关使用的能力（结账、履约、订单、目录搜索）、接收订单事件的 Webhook（`/ucp/webhooks/orders`），以及用于验证其请求签名的公钥（UCP_SIGNING_KEY）。',
      responses: {
        '200': 'UCP 档案。',
        '400': '`invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
        '431': '`request_header_fields_too_large`: 请求行与请求头合计超过 16 KB（查询过长或某个请求头过大）。',
      },
    },
    getUcpPlatformProfileVersion: {
      summary: '网关在较旧 UCP 版本下的平台档案',
      description: '同一份档案，按网关支持的较旧 UCP 版本（2026-01-11）的格式给出，供该版本的商家使用。',
      responses: {
        '200': 'UCP 档案。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '404': '`version_not_found`: 网关没有该版本的档案。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
        '431': '`request_header_fields_too_large`: 请求行与请求头合计超过 16 KB（查询过长或某个请求头过大）。',
      },
    },
    postUcpWebhooksOrders: {
      summary: '来自 UCP 商家的订单事件',
      description:
        'UCP 商家将其订单（placed、shipped、delivered、canceled、refunded）POST 到此处，并按其 UCP 版本的规定签名（使用商家档案中的密钥按 RFC 9421 签名；2026-01-11 版本则在 Request-Signature 中附分离式 JWS）。订单的 `checkout_id` 即商家的会话 id，由它找到对应的网关结账：更新该结账的 `order`（状态、物流跟踪）与审计轨迹。对于并非由网关下的订单，事件会被确认接收，但不作任何存储。',
      fields: {
        body: '成员名及其中任何字符串都不得包含 NUL（U+0000）。',
      },
      responses: {
        '200': '已验证并已应用（或为重复事件）。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符，或指定了不予解码的编码（支持 identity、gzip、deflate、br）。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。 `invalid_order_event`: 请求体不是 UCP 订单。',
        '401': '`invalid_signature`: 该事件并非由下此订单的商家签名。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
        '431': '`request_header_fields_too_large`: 请求行与请求头合计超过 16 KB（查询过长或某个请求头过大）。',
      },
    },
    postAcpWebhooksMerchantIdOrders: {
      summary: '来自 ACP 卖方的订单事件',
      description:
        'ACP 卖方将 `order_create` / `order_update` 事件 POST 到此处，并附 `Merchant-Signature: t=<unix>,v1=<对 "<t>.<body>" 计算的十六进制 HMAC-SHA256>`，密钥为其注册时返回的 webhook_secret（时钟容差 5 分钟）。事件指明结账会话：对应的网关结账随之获得订单状态与物流跟踪。',
      fields: {
        body: '成员名及其中任何字符串都不得包含 NUL（U+0000）。',
      },
      responses: {
        '200': '已验证并已应用（或为重复事件）。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符，或指定了不予解码的编码（支持 identity、gzip、deflate、br）。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。 `invalid_order_event`: 请求体不是 ACP 订单事件。',
        '401': '`invalid_signature`: Merchant-Signature 缺失、格式错误、超出时间窗口或不正确。',
        '404': '`merchant_not_found`: 不存在该 id 的 ACP 卖方。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
        '431': '`request_header_fields_too_large`: 请求行与请求头合计超过 16 KB（查询过长或某个请求头过大）。',
      },
    },
  },
  schemas: {
    OrderEventReceipt: {
      duplicate: '同一事件此前已到达过；未作任何更改。',
      checkout_id: '该事件所应用到的结账；为 null 表示网关没有持有该订单的结账。',
      status: '事件所述的订单状态（placed、shipped、delivered、canceled、refunded 等）。',
    },
    AcpError: {
      param: '出错字段的 JSONPath。',
    },
  },
};
