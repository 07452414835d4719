import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the reports routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const reportsZhCN: LocaleTexts = {
  operations: {
    getV1ReportAttribution: {
      summary: '归因 ROI 报表',
      description:
        '最近 `days` 天内的曝光（已签发的卡片）、点击（CTA 跳转）、匹配令牌、支付授权以及带 GMV、佣金和 ROI 的归因订单，按总计、渠道和头部商品分别统计。订单依次按 rec_id、匹配令牌、结账关联；已退款和已取消的订单不计入；金额按币种分别统计。响应中列出关联规则，docs/REPORTS.md 对其有详细说明。使用供给密钥时报表覆盖全平台；使用 API 密钥（reports 权限）时只统计该密钥所属开发者的流量（scope: developer），未归因订单不属于任何开发者，记为 0。',
      params: {
        days: '截至当前的窗口天数，1..365，默认 30。',
        channel: '仅统计该渠道（卡片的渠道；令牌和结账则为意图的 source_channel）。',
        product_id: '仅统计该目录商品（以字符串表示的整数）。',
      },
      fields: {
        'param.days': '截至当前的窗口天数，1..365，默认 30。',
        'param.channel': '仅统计该渠道（卡片的渠道；令牌和结账则为意图的 source_channel）。',
        'param.product_id': '仅统计该目录商品（以字符串表示的整数）。',
      },
      responses: {
        '200': '归因报表。',
        '400':
          '`invalid_query`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`unauthorized`: 供给密钥或 API 密钥无效或缺失。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    postV1BillingSettlementPreview: {
      summary: '账单结算预览',
      description:
        '商家在该时间窗口内将被收取的费用：每笔归因订单的佣金（订单自带的佣金或佣金方案，否则为提案的佣金方案，否则为商家 metadata.billing.commission_plan），以及每个合格线索和每次已接受匹配的费用。请求体未给出的数量和订单从数据库计算。不会存储或计费任何内容。运营方（供给密钥）可预览任意商家；使用 API 密钥时还需提供 merchant_id 对应的 X-Merchant-Token：商家只能预览自己的结算。',
      responses: {
        '200': '结算预览（preview: true）。',
        '400':
          '`invalid_payload`: 缺少必填字段；`fields` 指出该字段。 `invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `missing_fields`: merchant_id is missing (checked with the registration token, before the body). `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401':
          '`unauthorized`: 供给密钥或 API 密钥无效或缺失。 `missing_registration_token`: An API key caller did not send X-Merchant-Token.',
        '403':
          '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。 `invalid_registration_token`: X-Merchant-Token is not the registration token of merchant_id.',
        '404': '`merchant_not_found`: 不存在该 merchant_id 的商家。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
  },
  schemas: {
    AttributionReport: {
      'totals.impressions': '窗口内签发的卡片数（rec_cards）。',
      'totals.clicks': '窗口内由 GET /r/{recId} 记录的 CTA 点击数。',
      'totals.ctr': 'clicks / impressions；无曝光时为 null。',
      'totals.revenue': '按币种统计的归因 GMV、佣金和 ROI（绝不换算）。',
      'totals.unattributed_orders': '窗口内引用未知或引用签发于窗口之外的订单数（仅适用商品过滤）。',
      'totals.excluded_orders': '窗口内已退款或已取消的订单数。',
      'by_channel[].impressions': '窗口内签发的卡片数（rec_cards）。',
      'by_channel[].clicks': '窗口内由 GET /r/{recId} 记录的 CTA 点击数。',
      'by_channel[].ctr': 'clicks / impressions；无曝光时为 null。',
      'by_channel[].revenue': '按币种统计的归因 GMV、佣金和 ROI（绝不换算）。',
      'by_product.product_count': '窗口内有任何活动的商品数。',
      'by_product.products': '头部商品，依次按美元 GMV、归因订单数、点击数排序。',
      'by_product.products[].impressions': '窗口内签发的卡片数（rec_cards）。',
      'by_product.products[].clicks': '窗口内由 GET /r/{recId} 记录的 CTA 点击数。',
      'by_product.products[].ctr': 'clicks / impressions；无曝光时为 null。',
      'by_product.products[].revenue': '按币种统计的归因 GMV、佣金和 ROI（绝不换算）。',
      join_rules: '点击、令牌和订单与卡片及提案的关联方式。',
    },
    AttributionRevenue: {
      gmv: '主币单位。',
      gmv_cents: '最小货币单位。',
      roi: '每单位已付佣金带来的 GMV（gmv / commission）；佣金为 0 时为 null。',
    },
    SettlementPreview: {
      preview: '始终为 true：不会存储或计费任何内容。',
      'line_items[].basis':
        '金额的来源（order_commission、order_plan、reported、proposal_plan、merchant_plan、none、default_fee、merchant_billing、remaining_orders）。',
    },
    SettlementPreviewRequest: {
      attributed_orders: '需计费的订单；未提供时使用该商家在窗口内的归因订单。',
      qualified_leads: '未提供时从数据库按窗口统计。',
      accepted_matches: '未提供时从数据库按窗口统计。',
      days: '截至当前的窗口天数，1..365，默认 30。',
      currency: '默认：商家的 metadata.billing.currency，否则为 BILLING_CURRENCY。',
    },
    SettlementOrder: {
      amount: '订单金额，以主币单位计。',
      currency: '默认为预览币种；其他币种的订单会被跳过，绝不换算。',
      commission: '该订单已约定的佣金（主币单位）；优先于任何佣金方案。',
      commission_plan: '该订单的佣金方案：rate（比例，0..1）或 flat（主币单位）；否则使用商家的 metadata.billing.commission_plan。',
    },
  },
};
