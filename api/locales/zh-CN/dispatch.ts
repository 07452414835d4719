import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the dispatch routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const dispatchZhCN: LocaleTexts = {
  operations: {
    getV1MerchantDispatchQueue: {
      summary: 'Intent.Surge 派发队列',
      description:
        '各状态的计数以及最新的投递（可按 state、merchant_id、intent_id 过滤），每条附带其最近一次尝试。运营方（供给密钥）可查看所有商家；使用 API 密钥并提供 X-Merchant-Token 时只能查看该商家自己的投递（按其他 merchant_id 过滤时列表为空）。',
      params: {
        limit: '最新的在前；1..500，默认 100。',
      },
      fields: {
        'param.limit': '最新的在前；1..500，默认 100。',
      },
      responses: {
        '200': '队列汇总与投递列表。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_supply_key`: 供给密钥无效或缺失。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1MerchantDispatchQueueDeliveryId: {
      summary: '单条投递及其全部尝试',
      description: '运营方可查看任意投递；商家（API 密钥加 X-Merchant-Token）只能查看自己的投递：其他商家的投递与未知 id 一样返回 404。',
      responses: {
        '200': '该投递及其尝试记录（按时间从早到晚）。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_supply_key`: 供给密钥无效或缺失。',
        '404': '`delivery_not_found`: 不存在该 id 的投递。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1MerchantDispatchQueueRetry: {
      summary: '重放死信队列中的投递',
      description:
        '重放指定的投递，或全部死信投递（每次调用最多 2000 条）：重放工作流以相同的 webhook-id 为每条发送一次尝试，未送达的投递在它自己的运行（delivery-<id>-replay-<n>）中按重试计划继续。已成功投递的投递不会再次发送。',
      responses: {
        '200': '已发送的重放（以及未送达者的运行）。',
        '202': '仍在发送重放；可通过工作流 id 查看进度。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_supply_key`: 供给密钥无效或缺失。',
        '404': '`delivery_not_found`: 不存在该 id 的投递。',
        '409': '`delivery_not_in_dlq`: 该投递不在死信队列中。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
        '503': '`temporal_unavailable`: 无法连接 Temporal。',
      },
    },
  },
  schemas: {
    DispatchQueue: {
      summary: '在 merchant_id / intent_id 过滤条件下各状态的计数。',
    },
    Delivery: {
      delivery_id: '也是每次尝试的 webhook-id 请求头。',
      workflow_id:
        '当前发送或最后一次发送它的 Temporal 工作流：首次尝试由意图的扇出工作流（surge-<intent_id>）发送；首次尝试未送达后，由它自己的运行（delivery-<id>）发送。重放后：重放的运行（delivery-<id>-replay-<n>），仅当重放自身的那次尝试（由 dlqReplay 工作流发送，即重试应答中的 replay_workflow_id）未送达时才存在。',
    },
    DeliveryAttempt: {
      replay: '0：首次运行；n：从死信队列的第 n 次重放。',
    },
    DispatchRetryResult: {
      status: 'scheduling：重放工作流仍在发送重放；请跟踪 replay_workflow_id。',
      replays:
        '每条重放及发送它的工作流：重放自身的尝试送达时为重放工作流（replay_workflow_id 及其运行 id）；否则为它的运行 delivery-<id>-replay-<n>，按计划重试，再次进入死信队列时以 Failed 结束（run_id 为 null：该运行已存在）。',
    },
    DispatchRetryRequest: {
      delivery_id: '省略时：全部死信投递（每次调用最多 2000 条；见 remaining）。',
    },
  },
};
