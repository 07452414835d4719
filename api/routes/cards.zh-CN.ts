/** zh-CN translations of the card route texts (merged into openapi-locales). */
export const cardsZhCN: Record<string, string> = {
  'Get an issued Product Card Document': '获取已签发的商品卡片文档',
  'The card exactly as it was handed out under this rec_id (by a match session, a product card, a showcase or a recommendation).':
    '按该 rec_id 签发时的原样返回卡片（来自匹配会话、商品卡片、橱窗或推荐）。',
  'The stored card.': '已存储的卡片。',
  'No card with this rec_id.': '不存在该 rec_id 的卡片。',
  'Build a fresh Product Card Document for a product': '为商品生成新的商品卡片文档',
  'Built from the catalog now, under a new rec_id that is kept for attribution.': '基于当前商品目录生成，使用新的 rec_id 并保存以便归因。',
  'The card.': '卡片。',
  'No product with this id.': '不存在该 id 的商品。',
  'Recorded with the card and its clicks.': '随卡片及其点击一同记录。',
  "A creator's showcase": '创作者橱窗',
  "The creator's best-converting products as Product Card Documents (limit 1..10, default 6).": '该创作者转化最好的商品，以商品卡片文档形式返回（limit 1..10，默认 6）。',
  'The showcase.': '橱窗。',
  'No creator with this username.': '不存在该用户名的创作者。',
  'Follow a card call-to-action': '跟随卡片的行动号召链接',
  'The URL in cta.primary.url. Records the click against the rec_id and redirects (302) to the product page with rec_id attached. Hand the URL to the shopper verbatim: the rec_id in it is what attributes the order.':
    '即 cta.primary.url 中的 URL。按 rec_id 记录点击，并重定向（302）到附带 rec_id 的商品页面。请将该 URL 原样交给购物者：其中的 rec_id 用于订单归因。',
  'Redirect to the product page.': '重定向到商品页面。',
};
