/** zh-CN translations of the experience route texts (merged into openapi-locales). */
export const experienceZhCN: Record<string, string> = {};
