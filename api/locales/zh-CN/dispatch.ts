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
        '重放指定的投递，或全部死信投递（给出 merchant_id 时只重放该商家的；每次调用最多 2000 条）：重放工作流以相同的 webhook-id 为每条发送一次尝试，未送达的投递在它自己的运行（delivery-<id>-replay-<n>）中按重试计划继续。应答列出每条重放的结果（delivered、retrying、dead_lettered，尚未得知时为 sending）以及当前负责它的工作流。过滤条件没有匹配任何死信时不启动任何工作流（status 为 nothing_to_replay）。已成功投递的投递不会再次发送。',
      responses: {
        '200': '已发送的重放及各自的结果；或没有可重放的投递（未启动工作流）。',
        '202': '仍在发送重放；可通过工作流 id 查看进度。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_supply_key`: 供给密钥无效或缺失。',
        '404': '`delivery_not_found`: 不存在该 id 的投递（给出 merchant_id 时：该商家没有该 id 的投递）。',
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
        '当前发送或最后一次发送它的 Temporal 工作流：首次尝试由意图的扇出工作流（surge-<intent_id>）发送；首次尝试未送达后，由它自己的运行（delivery-<id>）发送。重放后：dlqReplay 工作流（重试应答中的 replay_workflow_id）在发送重放自身的那次尝试期间以及该尝试送达之后；该尝试未送达时为重放的运行（delivery-<id>-replay-<n>）。',
    },
    DeliveryAttempt: {
      replay: '0：首次运行；n：从死信队列的第 n 次重放。',
    },
    DispatchRetryResult: {
      state: '重放来源队列：死信投递（即请求中的 state）；每条重放自身的状态见 replays。',
      status:
        'scheduled：重放工作流已发送全部重放（各自结果见 replays）；scheduling：仍在发送，请跟踪 replay_workflow_id；nothing_to_replay：没有匹配的死信，未启动工作流。',
      scheduled: '本次调用重放的投递数。',
      merchant_id: '请求中的 merchant_id 过滤条件，未给出时为 null。',
      remaining:
        '本次调用之后仍处于死信状态的投递数（给出 merchant_id 时只计该商家的）：未被本次重放（超过每次 2000 条的上限，或期间又进入死信队列，包括再次失败的重放）。大于 0 时请再次调用。',
      summary: '用文字说明的应答：重放了多少条、各自结果如何、还有多少条处于死信状态以及下一步该做什么。',
      replay_workflow_id: '本次调用的 dlqReplay 工作流；未重放任何投递时为 null。',
      replays: '每条被重放的投递及其结果，以及当前负责它的工作流。',
    },
    DispatchReplayedDelivery: {
      outcome:
        '应答时重放的状况：delivered（已送达）；retrying（其尝试失败：它的运行 delivery-<id>-replay-<n> 将在 next_attempt_at 再次尝试）；dead_lettered（再次进入死信队列：原因见 reason）；sending（尚无结果：请跟踪 workflow_id，或查询该投递）。',
      state: '该投递当前的状态，与队列中显示的一致。',
      reason: 'retrying：失败尝试的错误；dead_lettered：进入死信队列的原因；其他情况为 null。',
      status_code: '重放最后一次尝试的 HTTP 状态码（尚无应答或没有应答时为 null）。',
      next_attempt_at: 'retrying：它的运行再次尝试的时间。',
      workflow_id:
        '当前负责该投递的工作流，与队列中显示的一致：重放自身的尝试已送达或仍在发送时为重放工作流（replay_workflow_id）；否则为重放的运行 delivery-<id>-replay-<n>。',
      run_id: '该工作流的运行 id（本次调用未启动的运行，例如已存在的运行，为 null）。',
    },
    DispatchRetryRequest: {
      delivery_id: '省略时：全部死信投递（给出 merchant_id 时为该商家的；每次调用最多 2000 条；见 remaining）。',
      merchant_id: '只重放该商家的死信（同时给出 delivery_id 时：该投递必须属于此商家，否则 404）。该商家没有死信时不启动任何工作流。',
    },
  },
};
