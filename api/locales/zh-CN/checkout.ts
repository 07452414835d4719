import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the checkout routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const checkoutZhCN: LocaleTexts = {
  operations: {
    postV1AgenticCheckout: {
      summary: '创建智能体结账计划',
      description:
        '校验提案（存在、属于该意图、未过期、状态与库存允许）、匹配令牌（存在、指向该提案、未过期）以及金额与币种，然后返回结账计划：以最小货币单位表示的商品行、运费与合计，有效期为 CHECKOUT_PLAN_TTL_S（15 分钟），以及其 `checkout_mode`：卖方有智能体端点时为 `agent_handoff`（确认时授权支付并交接订单），没有时为 `merchant_redirect`（确认时不授权任何款项，而是给买方一个可归因的商品页链接）。之后结账等待明确确认。',
      responses: {
        '201': '计划已创建，等待买方明确确认。',
        '202': '等待时间（`Prefer: wait=N`，0..60 秒，默认 60）结束时仍在处理：请轮询 status_url（也在 Location 中）。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。 `buyer_details_missing`: UCP/ACP 商家需要 buyer 与 shipping_address（line1、city、region、postal_code、country）；`fields` 指出缺少的字段。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404':
          '`intent_not_found`: 不存在该 id 的意图。 `proposal_not_found`: 不存在该 id 的提案。 `match_token_not_found`: 不存在该 id 的匹配令牌。',
        '409':
          '`proposal_expired`: 该提案已过期。 `proposal_state_invalid`: 该提案的状态不允许结账（需要 pending_confirmation 或 accepted）。 `proposal_intent_mismatch`: 该提案回应的是另一个意图。 `inventory_unavailable`: 该提案已无库存。 `match_token_mismatch`: 该匹配令牌指向另一个提案。 `match_token_expired`: 该匹配令牌已过期。 `acceptance_state_invalid`: 该匹配令牌未被接受（或已被使用）。 `match_token_in_checkout`: 另一个进行中的结账已在使用该匹配令牌。 `amount_mismatch`: 金额与提案价格加运费不一致。 `currency_mismatch`: 币种与提案币种不一致。',
        '502':
          '`merchant_refused`: UCP/ACP 商家拒绝开启结账会话；响应体包含 checkout_id、merchant_reason（商家原话）与 next_steps。 `merchant_unavailable`: UCP/ACP 商家在重试后仍未开启结账会话。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
        '503':
          '`temporal_unavailable`: 无法连接 Temporal。 `no_worker`: 没有 worker 轮询任务队列：不会等待 worker；请在 Retry-After 之后重试。',
      },
    },
    getV1AgenticCheckoutCheckoutId: {
      summary: '获取智能体结账',
      description:
        '状态、计划、回执与审计轨迹，由结账工作流存储；以及 `next_steps`：买方智能体此刻可以采取的下一步（失败或过期的结账：用该令牌重新创建计划、再次接受该提案、选择匹配会话中排序的其他提案，或重新搜索）。',
      responses: {
        '200': '该结账。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`checkout_not_found`: 不存在该 id 的智能体结账。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1AgenticCheckoutCheckoutIdConfirm: {
      summary: '确认智能体结账',
      description:
        '需要买方智能体的明确同意以及已签名的匹配令牌（JWS，按 /.well-known/jwks.json 中的公钥校验）；提案、金额与币种必须与计划一致。agent_handoff：授权支付，将订单交接到商家智能体的端点（Idempotency-Key：结账 id；商家据此去重），并以 confirmed 状态返回回执与审计轨迹；若交接最终失败，则撤销支付授权，匹配令牌在未过期时恢复为 accepted，并返回 502 merchant_handoff_failed。每个失败响应都包含该结账（`checkout_id`）、商家拒绝时的原话（`merchant_reason`，纯文本，最多 500 个字符）、支付授权是否已撤销（`payment_voided`、`payment_authorization_id`），以及按当前状态计算的 `next_steps`（`next_action`：其中第一项）。merchant_redirect：不支付；以 handed_off 状态返回 `continue_url`，即指向商品页的可归因 /r/{rec_id} 链接。重复确认返回相同结果。',
      responses: {
        '200': 'agent_handoff：状态 confirmed，附商家交接回执与审计轨迹。merchant_redirect：状态 handed_off，附 continue_url。',
        '202': '等待时间（`Prefer: wait=N`，0..60 秒，默认 60）结束时仍在处理：请轮询 status_url（也在 Location 中）。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。 `payment_credential_required`: UCP/ACP 商家通过其支付处理方收款：需要 payment_credential（本部署未配置默认处理方）。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '402': '`payment_declined`: UCP/ACP 商家拒绝了付款（其原文消息）；支付授权已撤销，其会话已取消。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`checkout_not_found`: 不存在该 id 的智能体结账。',
        '409':
          '`consent_invalid`: 未授予同意或缺少同意声明。 `match_token_invalid`: 匹配令牌 JWS 为伪造、格式错误或由其他密钥签名。 `match_token_expired`: 该匹配令牌已过期。 `match_token_mismatch`: 该匹配令牌不是创建此结账计划时使用的令牌。 `proposal_mismatch`: proposal_id 与计划不一致。 `amount_mismatch`: amount 与计划合计不一致。 `currency_mismatch`: currency 与计划币种不一致。 `checkout_expired`: 计划在确认前已过期；响应体包含 checkout_id 与 next_steps。 `checkout_failed`: 该结账此前已失败（支付或商家交接）；响应体包含 failure_code、checkout_id、merchant_reason、payment_authorization_id、payment_voided、next_action 与 next_steps。 `price_changed`: UCP/ACP 商家的合计自计划以来已变化：未完成任何操作；支付授权已撤销。 `inventory_unavailable`: UCP/ACP 商家已无库存：支付授权已撤销，其会话已取消。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
        '502':
          '`merchant_handoff_failed`: 商家智能体拒绝了交接（4xx：其理由在 merchant_reason 中），或在重试后仍未接受交接；支付授权已撤销。响应体包含 checkout_id、merchant_reason、payment_authorization_id、payment_voided、next_action 与 next_steps（例如用同一匹配令牌 plan_new_checkout，或 choose_another_proposal）。 `merchant_refused`: UCP/ACP 商家拒绝了订单（其原话在 merchant_reason 中）；支付授权已撤销，其会话已取消。',
        '503':
          '`temporal_unavailable`: 无法连接 Temporal。 `no_worker`: 没有 worker 轮询任务队列：不会等待 worker；请在 Retry-After 之后重试。',
      },
    },
  },
  schemas: {
    AgenticCheckout: {
      receipt:
        'agent_handoff：状态、merchant_response 摘要、handed_off_at。merchant_redirect：状态 handed_off、continue_url、rec_id、handed_off_at。',
      audit_trail: '结账的每个步骤，按时间从早到晚。',
      workflow_id: '对应的 Temporal 工作流（checkout-<checkout_id>）；搜索属性 CheckoutId。',
      buyer: '创建计划时提供的买方信息。',
      merchant_session: 'ucp/acp 商家：商家自己的结账会话（其履约选项、其接受的支付处理方）。',
      order: 'ucp/acp 商家：商家所下的订单，随其订单事件保持更新。',
      'order.status': '先为 placed，之后为商家订单事件所述的状态：shipped、delivered、canceled、refunded 等。',
    },
    AgenticCheckoutPlan: {
      merchant_id: '卖方。',
      'line_items[].external_id':
        '该商品在商家自己体系中的 id（其数据源 id，即 GET /v1/merchant/{merchantId}/products 所列）；并非来自数据源的商品为 null。添加该字段之前生成的计划中没有此字段。',
      rec_id: 'merchant_redirect：买方继续购买所经由的卡片；携带它的订单计入归因。',
      merchant_protocol:
        'agent_handoff：订单的交接方式：`gateway`（商家智能体的 Webhook）、`ucp` 或 `acp`（商家自己的结账会话；合计以商家为准）。',
      merchant_session: 'ucp/acp：计划合计所依据的商家结账会话。',
      shipping: '运费取自提案的 shipping_commitment（free: true → 0；否则取其费用）。',
      totals: '以最小货币单位（分）表示的金额。ucp/acp：商家自己的合计，含税。',
      amount: '以主货币单位表示的 total_minor。',
    },
    CheckoutFailure: {
      '': '结账失败的原因（任何支付授权均已先行撤销）以及智能体的下一步。',
      status: '失败的确认请求所返回的 HTTP 状态码。',
      next_action: '结账失败时的第一个下一步（next_steps 给出此刻的全部下一步）。',
      merchant_reason:
        '商家拒绝订单时的原话（例如 "Sorry, this item just sold out."）：纯文本，最多 500 个字符，已去除控制字符。商家未给出理由时为 null。',
    },
    CheckoutNextAction: {
      '': '买方智能体此刻对该结账可以采取的下一步，按其当前状态计算（结账本身、其匹配令牌与提案，以及其匹配会话排序的其他提案）。MCP 的 get_checkout 与 confirm_checkout 以及 A2A 任务给出相同的步骤与相同的措辞。',
      description: '要做什么，在 REST、MCP 与 A2A 中措辞相同。',
      how: '完成该步骤的调用（此处为 REST 路径；MCP 中为工具，A2A 中为技能）。',
      until: 'plan_new_checkout：令牌在此时间之前可用。',
      proposal_id: 'accept_match_again：需要再次接受的提案。',
      proposal_ids: 'choose_another_proposal：该会话中仍可购买的其他提案，按排序从高到低。',
    },
    AgenticCheckoutEnvelope: {
      next_steps: '截至本次响应，买方智能体可以采取的下一步（第一项为应采取的一步，其余为备选）。',
    },
    AgenticCheckoutRequest: {
      buyer_agent_id: '进行购买的购物方智能体。',
      match_token_id: '指向该提案的（已接受的）匹配令牌。',
      amount: '预期合计：提案价格加上其 shipping_commitment 中的运费，以主货币单位表示。',
      currency: 'ISO 4217 币种代码；比较时不区分大小写。',
    },
    ShippingAddress: {
      '': '订单的收货地址。通过 UCP 或 ACP 销售的商家需要 line1、city、region、postal_code 和 country：缺少这些字段时，为该商家创建计划会返回 400 `buyer_details_missing` 并指出所缺字段。',
      region: '州、省或地区。UCP 和 ACP 商家需要此字段。',
      postal_code: 'UCP 和 ACP 商家需要此字段。',
      country: 'ISO 3166-1 alpha-2 国家代码。',
    },
    CheckoutBuyer: {
      '': '买方的联系信息，会传给 UCP 或 ACP 商家的结账会话（商家需要这些信息：缺少时返回 400 `buyer_details_missing`）。',
    },
    PaymentCredential: {
      '': 'UCP/ACP 商家：用于完成商家结账会话的支付工具。不提供时，若部署配置了处理方（PROTOCOL_PAYMENT_HANDLER），则使用该处理方，并以网关的支付授权作为令牌。',
      handler: '商家档案中某个支付处理方的 `id` 或 `name`（例如 `mock_payment_handler`）。',
      token: '该处理方的支付工具令牌（例如 PSP 的委托支付令牌）。',
    },
    AgenticCheckoutConfirmRequest: {
      consent: '买方智能体的明确同意。',
      'consent.granted': '必须为 true：买方智能体的明确同意。',
      'consent.statement': '买方同意内容的文字说明（必填）。',
      match_token: '创建结账计划时所用匹配令牌的 signed_token（紧凑 JWS）。',
      amount: '必须等于计划合计，以主货币单位表示。',
      currency: 'ISO 4217 币种代码；比较时不区分大小写。',
    },
  },
};
