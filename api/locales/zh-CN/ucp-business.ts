import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the UCP business routes (api/routes/ucp-business.ts), by operation id (api/openapi-text.ts). */
export const ucpBusinessZhCN: LocaleTexts = {
  operations: {
    getWellKnownUcp: {
      summary: '网关的 UCP 商家档案（2026-04-08）',
      description:
        '网关作为其承载的所有商家的 UCP 商家：协议版本 2026-04-08（不支持更早的版本：目录能力首次出现在该版本中）、购物服务的 REST 绑定位于 `${PUBLIC_BASE_URL}/ucp`、能力 dev.ucp.shopping.catalog.search 与 dev.ucp.shopping.catalog.lookup，以及设置了 UCP_SIGNING_KEY 时的公钥。暂不提供结账与订单能力。',
    },
    postUcpCatalogSearch: {
      summary: '跨所有商家的 UCP 目录搜索',
      description:
        'UCP `search_catalog`：对所有商家的商品运行 GET /v1/recommend 背后的推荐引擎（使用 `query`，否则使用 `context.intent`；`context.address_country` 为收货国家），以 UCP 商品作答：价格为最小货币单位，含库存状态、卖方及每个商品的可归因链接。该调用会像 GET /v1/recommend 一样，以调用方的名义记录意图、提案与匹配会话。最多 10 个商品，仅一页（`has_next_page` 为 false；任何游标都已越过末尾）；`filters.price`（最小货币单位）会剔除范围外的变体。需要 `UCP-Agent: profile="…"`，指向声明了 dev.ucp.shopping.catalog.search 的 2026-04-08 平台档案。',
    },
    postUcpCatalogLookup: {
      summary: '按商品或变体 id 批量查询 UCP 目录',
      description:
        'UCP `lookup_catalog`：每个 id（目录商品 id，或 `<商品 id>:<feed 变体 id>`）解析到其商品，并附上它所指的变体（match 为 `exact`）或该商品的代表变体（`featured`）。未知的 id 不会返回，并在 `not_found` 信息消息中列出（HTTP 200）。最多 50 个 id。需要其档案声明了 dev.ucp.shopping.catalog.lookup 的 UCP-Agent。',
    },
    postUcpCatalogProduct: {
      summary: '按商品或变体 id 获取 UCP 商品',
      description:
        'UCP `get_product`：返回一个 id 对应的商品及其变体（若为变体 id，则该变体排在首位）。不指向任何商品的 id 以 HTTP 200 返回 UCP 错误响应（`not_found`，不可恢复）。需要其档案声明了 dev.ucp.shopping.catalog.lookup 的 UCP-Agent。',
    },
  },
};
