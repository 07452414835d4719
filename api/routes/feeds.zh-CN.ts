import type { LocaleTexts } from '../openapi-text';

/** zh-CN texts of the feeds routes and the schemas only they use, by operation id and field (api/openapi-text.ts). */
export const feedsZhCN: LocaleTexts = {
  operations: {
    postV1MerchantMerchantIdFeeds: {
      summary: '导入商品数据源',
      description:
        '将商品数据源导入该商家的目录：Shopify 商品 CSV 导出、Google Merchant Center TSV 或 XML（RSS 2.0 / Atom）数据源、ACP 商品数据源（JSON Lines）或网关自有的 CSV/JSONL，格式由内容识别（docs/CATALOG.md）。以 `content` 提供数据源内容，或提供要抓取的 `url`。商品以商家自己的 id 为键；有问题的行连同行号被拒绝，其余在一个事务中导入。返回带计数的导入运行记录。',
      responses: {
        '200': '导入运行记录：读取、新增、变更、未变、下架和拒绝（附原因）的行数。',
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
