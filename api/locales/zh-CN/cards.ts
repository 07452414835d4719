import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the cards routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const cardsZhCN: LocaleTexts = {
  operations: {
    getV1CardsRecId: {
      summary: '获取已签发的商品卡片文档',
      description: '按该 rec_id 签发时的原样返回卡片（来自匹配会话、商品卡片、橱窗或推荐）。',
      responses: {
        '200': '已存储的卡片。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`not_found`: 不存在该 rec_id 的卡片。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1ProductsProductIdCard: {
      summary: '为商品生成新的商品卡片文档',
      description: '基于当前商品目录生成，使用新的 rec_id 并保存以便归因。',
      params: {
        channel: '随卡片及其点击一同记录。',
      },
      fields: {
        'param.channel': '随卡片及其点击一同记录。',
      },
      responses: {
        '200': '卡片。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`product_not_found`: 不存在该 id 的商品。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1CreatorsUsernameShowcase: {
      summary: '创作者橱窗',
      description: '该创作者转化最好的商品，以商品卡片文档形式返回（limit 1..10，默认 6）。',
      responses: {
        '200': '橱窗。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。',
        '404': '`creator_not_found`: 不存在该用户名的创作者。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getRRecId: {
      summary: '跟随卡片的行动号召链接',
      description:
        '即 cta.primary.url 中的 URL。按 rec_id 记录点击，并重定向（302）到附带 rec_id 的商品页面。请将该 URL 原样交给购物者：其中的 rec_id 用于订单归因。',
      responses: {
        '302': '重定向到商品页面。',
        '400': '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。',
        '404': '`not_found`: 不存在该 rec_id 的卡片。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
  },
};
