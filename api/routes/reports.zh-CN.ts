/** zh-CN translations of the reports route texts (merged into openapi-locales). */
export const reportsZhCN: Record<string, string> = {
  // routes
  'Supply operations': '供给运营',
  'Attribution ROI report': '归因 ROI 报表',
  'Impressions (issued cards), clicks (CTA redirects), match tokens, payment authorizations and attributed orders with GMV, commission and ROI over the last `days`, in total, per channel and for the top products. Orders join on rec_id, then match token, then checkout; refunded and cancelled orders are excluded; amounts are per currency. The response lists the join rules; docs/REPORTS.md explains them. With the supply key the report is platform-wide; with an API key (scope reports) it counts that key\'s developer\'s traffic only (scope: developer), and unattributed orders, which belong to no developer, are 0.':
    '最近 `days` 天内的曝光（已签发的卡片）、点击（CTA 跳转）、匹配令牌、支付授权以及带 GMV、佣金和 ROI 的归因订单，按总计、渠道和头部商品分别统计。订单依次按 rec_id、匹配令牌、结账关联；已退款和已取消的订单不计入；金额按币种分别统计。响应中列出关联规则，docs/REPORTS.md 对其有详细说明。使用供给密钥时报表覆盖全平台；使用 API 密钥（reports 权限）时只统计该密钥所属开发者的流量（scope: developer），未归因订单不属于任何开发者，记为 0。',
  'The attribution report.': '归因报表。',
  'Billing settlement preview': '账单结算预览',
  "What a merchant would be billed for the window: commission on each attributed order (the order's own commission or plan, else the proposal's plan, else the merchant's metadata.billing.commission_plan), a fee per qualified lead and per accepted match. Counts and orders not given in the body are computed from the database. Nothing is stored or billed. Operators (supply key) preview any merchant; with an API key the call also needs the X-Merchant-Token of merchant_id: a merchant previews its own settlement only.":
    '商家在该时间窗口内将被收取的费用：每笔归因订单的佣金（订单自带的佣金或佣金方案，否则为提案的佣金方案，否则为商家 metadata.billing.commission_plan），以及每个合格线索和每次已接受匹配的费用。请求体未给出的数量和订单从数据库计算。不会存储或计费任何内容。运营方（供给密钥）可预览任意商家；使用 API 密钥时还需提供 merchant_id 对应的 X-Merchant-Token：商家只能预览自己的结算。',
  'The settlement preview (preview: true).': '结算预览（preview: true）。',
  'No merchant with this merchant_id.': '不存在该 merchant_id 的商家。',
  'A required field is missing; `fields` names it.': '缺少必填字段；`fields` 指出该字段。',
  // query and body
  'Window in days ending now, 1..365, default 30.': '截至当前的窗口天数，1..365，默认 30。',
  'Only this channel (the card channel, or the intent source_channel for tokens and checkouts).': '仅统计该渠道（卡片的渠道；令牌和结账则为意图的 source_channel）。',
  'Only this catalog product (integer as a string).': '仅统计该目录商品（以字符串表示的整数）。',
  'Order amount in major units.': '订单金额，以主币单位计。',
  'Defaults to the preview currency; other currencies are skipped, never converted.': '默认为预览币种；其他币种的订单会被跳过，绝不换算。',
  'Commission already agreed for this order (major units); wins over any plan.': '该订单已约定的佣金（主币单位）；优先于任何佣金方案。',
  "This order's plan: rate (share, 0..1) or flat (major units); else the merchant's metadata.billing.commission_plan.": '该订单的佣金方案：rate（比例，0..1）或 flat（主币单位）；否则使用商家的 metadata.billing.commission_plan。',
  "Orders to charge; absent → the merchant's attributed orders in the window.": '需计费的订单；未提供时使用该商家在窗口内的归因订单。',
  'Absent → counted from the database over the window.': '未提供时从数据库按窗口统计。',
  "Default: the merchant's metadata.billing.currency, else BILLING_CURRENCY.": '默认：商家的 metadata.billing.currency，否则为 BILLING_CURRENCY。',
  // report fields
  'Major units.': '主币单位。',
  'Minor units.': '最小货币单位。',
  'GMV per unit of commission paid (gmv / commission); null when the commission is 0.': '每单位已付佣金带来的 GMV（gmv / commission）；佣金为 0 时为 null。',
  'Cards issued in the window (rec_cards).': '窗口内签发的卡片数（rec_cards）。',
  'CTA clicks recorded by GET /r/{recId} in the window.': '窗口内由 GET /r/{recId} 记录的 CTA 点击数。',
  'clicks / impressions; null without impressions.': 'clicks / impressions；无曝光时为 null。',
  'Attributed GMV, commission and ROI per currency (never converted).': '按币种统计的归因 GMV、佣金和 ROI（绝不换算）。',
  'Orders in the window whose references are unknown or issued outside it (only the product filter applies).': '窗口内引用未知或引用签发于窗口之外的订单数（仅适用商品过滤）。',
  'Refunded or cancelled orders in the window.': '窗口内已退款或已取消的订单数。',
  'Products with any activity in the window.': '窗口内有任何活动的商品数。',
  'Top products by USD GMV, then attributed orders, then clicks.': '头部商品，依次按美元 GMV、归因订单数、点击数排序。',
  'How clicks, tokens and orders are joined to cards and proposals.': '点击、令牌和订单与卡片及提案的关联方式。',
  // settlement fields
  'Where the amount came from (order_commission, order_plan, reported, proposal_plan, merchant_plan, none, default_fee, merchant_billing, remaining_orders).':
    '金额的来源（order_commission、order_plan、reported、proposal_plan、merchant_plan、none、default_fee、merchant_billing、remaining_orders）。',
  'Always true: nothing is stored or billed.': '始终为 true：不会存储或计费任何内容。',
};
