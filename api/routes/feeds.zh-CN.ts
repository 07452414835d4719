/** zh-CN translations of the merchant catalog (feed) route texts (merged into openapi-locales). */
export const feedsZhCN: Record<string, string> = {
  'Import a product feed': '导入商品数据源',
  "Imports a product feed into the merchant's catalog: a Shopify product CSV export, a Google Merchant Center TSV or XML (RSS 2.0 / Atom) feed, an ACP product feed (JSON Lines) or the gateway's own CSV/JSONL, detected from the content (docs/CATALOG.md). Give the feed as `content`, or a `url` to fetch. Products are keyed by the merchant's own ids; bad rows are rejected with their line and the rest imported in one transaction. Answers the run record with its counts.":
    '将商品数据源导入该商家的目录：Shopify 商品 CSV 导出、Google Merchant Center TSV 或 XML（RSS 2.0 / Atom）数据源、ACP 商品数据源（JSON Lines）或网关自有的 CSV/JSONL，格式由内容识别（docs/CATALOG.md）。以 `content` 提供数据源内容，或提供要抓取的 `url`。商品以商家自己的 id 为键；有问题的行连同行号被拒绝，其余在一个事务中导入。返回带计数的导入运行记录。',
  'The import run: rows read, added, changed, unchanged, removed and rejected (with reasons).': '导入运行记录：读取、新增、变更、未变、下架和拒绝（附原因）的行数。',
  'The feed cannot be read as a whole (unknown format, missing required columns, malformed XML, unterminated quote); nothing was imported.':
    '数据源整体无法读取（未知格式、缺少必需列、XML 格式错误、引号未闭合）；未导入任何内容。',
  'The feed URL could not be fetched (unsafe address, unreachable, timeout, too large, too many redirects or a non-2xx answer).':
    '无法抓取数据源 URL（地址不安全、不可达、超时、过大、重定向过多或非 2xx 响应）。',
  'The feed itself (any supported format, detected from the content).': '数据源内容本身（任一受支持的格式，由内容识别）。',
  'Where to fetch the feed: one bounded GET through the same outbound guard as every merchant call (public addresses only, size and time bounds, redirects checked).':
    '数据源的抓取地址：经与所有商家调用相同的出站防护发起一次有界 GET（仅限公网地址，有大小与时间上限，校验重定向）。',
  "true: the feed is the merchant's whole catalog, and its feed products missing from it become unavailable (never deleted).": 'true：该数据源是商家的完整目录，其中缺失的数据源商品将变为不可售（不会删除）。',
  'Currency of prices that name none (a Shopify export); default USD.': '未注明币种的价格所用币种（如 Shopify 导出）；默认 USD。',
  "Storefront origin; a Shopify product's link is {store_url}/products/{handle}.": '店铺源地址；Shopify 商品链接为 {store_url}/products/{handle}。',
  'Detected format: shopify_csv, merchant_center_tsv, merchant_center_rss, merchant_center_atom, acp_jsonl, csv, tsv or jsonl.':
    '识别出的格式：shopify_csv、merchant_center_tsv、merchant_center_rss、merchant_center_atom、acp_jsonl、csv、tsv 或 jsonl。',
  'Products of a full snapshot missing from it, now unavailable.': '完整快照中缺失、现已不可售的商品。',
  'Rejected rows with their line and reason (the first 1000).': '被拒绝的行及其行号与原因（最多前 1000 条）。',
  "List a merchant's registered feeds": "列出商家已登记的数据源",
  "Get a registered feed": "获取已登记的数据源",
  "Remove a registered feed": "移除已登记的数据源",
  "List a registered feed's runs": "列出已登记数据源的运行记录",
  "The feeds this merchant registered for scheduled refresh, each with its schedule id and its latest run.": "该商家登记为定时刷新的数据源，各附其调度 id 与最近一次运行。",
  "One registered feed: URL, interval, the validators of its last good fetch, its schedule id and its latest run.": "一个已登记的数据源：URL、刷新间隔、上次成功抓取的校验值、调度 id 与最近一次运行。",
  "Deletes the feed's schedule and removes the feed: no further refreshes. Its products stay in the catalog as they are (old cards and clicks still resolve) and its runs stay readable to operators; a second delete is a 404.": "删除该数据源的调度并移除数据源：不再刷新。其商品按原样保留在目录中（旧卡片与点击仍可解析），运行记录仍可供运维查看；再次删除返回 404。",
  "The runs of a registered feed, newest first: status (running, succeeded, not_modified, failed with its reason), rows read, added, changed, unchanged, removed and rejected (with line and reason), bytes read, start, finish and milliseconds per phase. A running import shows its counts so far.": "已登记数据源的运行记录，最新在前：状态（running、succeeded、not_modified、failed 及原因）、读取、新增、变更、未变、下架和拒绝（附行号与原因）的行数、读取字节数、开始与结束时间及各阶段毫秒数。进行中的导入显示当前计数。",
  "The registered feeds, oldest first.": "已登记的数据源，最早在前。",
  "The feed.": "该数据源。",
  "The feed is removed.": "数据源已移除。",
  "The runs, newest first.": "运行记录，最新在前。",
  "The registered feed, with its schedule id (Location: the feed).": "已登记的数据源及其调度 id（Location：该数据源）。",
  "Currency of prices that name none, as registered (default USD).": "未注明币种的价格所用币种（登记时提供；默认 USD）。",
  "Storefront origin for product links of a Shopify export, as registered.": "Shopify 导出商品链接所用的店铺源地址（登记时提供）。",
};
