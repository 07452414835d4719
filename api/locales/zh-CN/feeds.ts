import type { LocaleTexts } from '../../openapi-text';

/** zh-CN texts of the feeds routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const feedsZhCN: LocaleTexts = {
  operations: {
    postV1MerchantMerchantIdFeeds: {
      summary: '导入商品数据源',
      description:
        '将商品数据源导入该商家的目录：Shopify 商品 CSV 导出、Google Merchant Center TSV 或 XML（RSS 2.0 / Atom）数据源、ACP 商品数据源（JSON Lines）或网关自有的 CSV/JSONL，格式由内容识别（docs/CATALOG.md）。以 `content` 提供数据源内容，或提供要抓取的 `url`。商品以商家自己的 id 为键；有问题的行连同行号被拒绝，其余在一个事务中导入。返回带计数的导入运行记录，以及数据源前 1000 个商品的商家自有 id 与网关 `product_id` 的对照（全部商品：GET /v1/merchant/{merchantId}/products）。',
      responses: {
        '200': '导入运行记录：读取、新增、变更、未变、下架和拒绝（附原因）的行数，以及前若干个商品的商家自有 id 与网关 id 的对照。',
        '201': '已登记的数据源及其调度 id（Location：该数据源）。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_json`: 请求体不是合法的 JSON，或嵌套超过 64 层。 `invalid_content_encoding`: 请求体与其 Content-Encoding 不符。 `invalid_feed`: 数据源整体无法读取（未知格式、缺少必需列、XML 格式错误、引号未闭合）；未导入任何内容。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。 `missing_registration_token`: 缺少注册令牌（X-Merchant-Token）。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。 `invalid_registration_token`: 注册令牌无效。',
        '404': '`merchant_not_found`: 路径参数无法指向任何资源（格式或长度不符）。 `merchant_not_found`: 不存在该 ID 的商家智能体。',
        '413': '`payload_too_large`: 请求体超过 1 MB。',
        '415': '`unsupported_media_type`: 请求体不是 application/json。',
        '422': '`feed_unavailable`: 无法抓取数据源 URL（地址不安全、不可达、超时、过大、重定向过多或非 2xx 响应）。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
      },
    },
    getV1MerchantMerchantIdProducts: {
      summary: '列出商家的商品及其 id',
      description:
        '该商家来自数据源的商品，每个商品列出网关的 `product_id`、商家自己的 `external_id`（数据源中的 id，或将其变体行归为一组的 id）及其变体的 id 与 SKU，并附标题、价格、链接和可售状态：即商家 id 到网关 id 的对照。完整快照中缺失的商品也会列出，状态为 discontinued。按 external_id 排序，分页返回：将某页的 `next_cursor` 作为 `cursor` 传入即可获取下一页（最后一页为 null）。',
      params: {
        limit: '每页商品数，1..1000，默认 100。',
        cursor: '本页的起点：上一页的 next_cursor（不透明值）。不提供时为第一页。',
      },
      fields: {
        'param.limit': '每页商品数，1..1000，默认 100。',
        'param.cursor': '本页的起点：上一页的 next_cursor（不透明值）。不提供时为第一页。',
      },
      responses: {
        '200': '一页商品，按 external_id 排序。',
        '400':
          '`invalid_payload`: 请求未通过校验；`fields` 指出出错的字段。 `invalid_query`: 查询中含有该操作未声明的参数；`fields` 指出该参数。',
        '401': '`invalid_api_key`: API 密钥缺失、无效、已吊销或已删除。 `missing_registration_token`: 缺少注册令牌（X-Merchant-Token）。',
        '403': '`insufficient_scope`: API 密钥缺少此操作所需的权限范围。 `invalid_registration_token`: 注册令牌无效。',
        '404': '`merchant_not_found`: 路径参数无法指向任何资源（格式或长度不符）。 `merchant_not_found`: 不存在该 ID 的商家智能体。',
        '429': '`rate_limited`: 请求过多；请在 Retry-After 头（秒）之后重试。',
        '431': '`request_header_fields_too_large`: 请求行与请求头合计超过 16 KB（查询过长或某个请求头过大）。',
      },
    },
    getV1MerchantMerchantIdFeeds: {
      summary: '列出商家已登记的数据源',
      description: '该商家登记为定时刷新的数据源，各附其调度 id 与最近一次运行。',
      responses: {
        '200': '已登记的数据源，最早在前。',
      },
    },
    getV1MerchantMerchantIdFeedsFeedId: {
      summary: '获取已登记的数据源',
      description: '一个已登记的数据源：URL、刷新间隔、上次成功抓取的校验值、调度 id 与最近一次运行。',
      responses: {
        '200': '该数据源。',
      },
    },
    deleteV1MerchantMerchantIdFeedsFeedId: {
      summary: '移除已登记的数据源',
      description:
        '删除该数据源的调度并移除数据源：不再刷新。其商品按原样保留在目录中（旧卡片与点击仍可解析），运行记录仍可供运维查看；再次删除返回 404。',
      responses: {
        '200': '数据源已移除。',
      },
    },
    getV1MerchantMerchantIdFeedsFeedIdRuns: {
      summary: '列出已登记数据源的运行记录',
      description:
        '已登记数据源的运行记录，最新在前：状态（running、succeeded、not_modified、failed 及原因）、读取、新增、变更、未变、下架和拒绝（附行号与原因）的行数、读取字节数、开始与结束时间及各阶段毫秒数。进行中的导入显示当前计数。',
      responses: {
        '200': '运行记录，最新在前。',
      },
    },
  },
  schemas: {
    FeedRun: {
      format: '识别出的格式：shopify_csv、merchant_center_tsv、merchant_center_rss、merchant_center_atom、acp_jsonl、csv、tsv 或 jsonl。',
      removed: '完整快照中缺失、现已不可售的商品。',
      rejections: '被拒绝的行及其行号与原因（最多前 1000 条）。',
      product_count: '数据源包含的商品数（新增 + 变更 + 未变）；`products` 列出其中最前面的商品的 id 对照。',
      products:
        '数据源前 1000 个商品的商家自有 id 与网关 id 的对照，按数据源顺序排列。product_count 更大时，GET /v1/merchant/{merchantId}/products 可列出全部。',
    },
    ImportedProductIds: {
      external_id: '商家自己的商品 id（数据源中的 id，或将其变体归为一组的 id）。',
      product_id: '网关的商品 id。',
      variant_ids: '其各变体在数据源中的 id；商品本身即唯一可售项时为空。',
    },
    MerchantProductList: {
      products: '按 external_id（商家自己的 id）排序。',
      next_cursor: '作为 `cursor` 传入以获取下一页；最后一页为 null。',
    },
    MerchantProduct: {
      product_id: '网关的商品 id（POST /v1/proposals 的 product_id）。',
      external_id:
        '商家自己的商品 id：数据源中的 `id`，或将其变体行归为一组的 id（item_group_id、Shopify Handle、ACP 商品 id）。POST /v1/proposals 以 external_id 接收它。',
      price: '以商品自身币种表示的价格（主货币单位）；有折扣时附 compare_at。',
      variants: '其数据源列出的变体；商品本身即唯一可售项时为空。',
    },
    MerchantProductVariant: {
      variant_id: '该变体在数据源中的 id（POST /v1/proposals 以 variant_id 接收它）。',
      sku: '数据源注明时为其 SKU（variant_id 也接受它）。',
      price: '以商品币种的主货币单位表示。',
    },
    FeedImportRequest: {
      content: '数据源内容本身（任一受支持的格式，由内容识别）。',
      url: '数据源的抓取地址：经与所有商家调用相同的出站防护发起一次有界 GET（仅限公网地址，有大小与时间上限，校验重定向）。',
      full_snapshot: 'true：该数据源是商家的完整目录，其中缺失的数据源商品将变为不可售（不会删除）。',
      currency: '未注明币种的价格所用币种（如 Shopify 导出）；默认 USD。',
      store_url: '店铺源地址；Shopify 商品链接为 {store_url}/products/{handle}。',
    },
  },
};
