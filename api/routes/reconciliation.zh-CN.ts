/** zh-CN translations of the reconciliation route texts (merged into openapi-locales). */
export const reconciliationZhCN: Record<string, string> = {};
