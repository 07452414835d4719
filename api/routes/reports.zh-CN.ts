/** zh-CN translations of the reports route texts (merged into openapi-locales). */
export const reportsZhCN: Record<string, string> = {};
