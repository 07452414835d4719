/** zh-CN translations of the merchant-ops route texts (merged into openapi-locales). */
export const merchantOpsZhCN: Record<string, string> = {};
