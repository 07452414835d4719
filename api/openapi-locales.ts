/**
 * Localized views of the OpenAPI document. English is the source; other locales translate the
 * `summary` and `description` texts only, so paths, methods and field names are identical. A
 * translation is keyed by what it describes (operation id and response status, parameter or field;
 * schema name and field path: api/openapi-text.ts), never by its English wording, so editing the
 * English keeps the translation. A text without a translation is served in English (the fallback);
 * test/openapi-locales.test.ts fails on a translation whose operation or field no longer exists and
 * on an operation without a translated summary.
 */
import { commonZhCN } from './locales/zh-CN/common';
import { mergeTexts, translateDocument, type LocaleTexts } from './openapi-text';
import { systemZhCN } from './locales/zh-CN/system';
import { developersZhCN } from './locales/zh-CN/developers';
import { dispatchZhCN } from './locales/zh-CN/dispatch';
import { merchantsZhCN } from './locales/zh-CN/merchants';
import { agentsZhCN } from './locales/zh-CN/agents';
import { intentsZhCN } from './locales/zh-CN/intents';
import { matchZhCN } from './locales/zh-CN/match';
import { recommendZhCN } from './locales/zh-CN/recommend';
import { cardsZhCN } from './locales/zh-CN/cards';
import { proofZhCN } from './locales/zh-CN/proof';
import { mandatesZhCN } from './locales/zh-CN/mandates';
import { checkoutZhCN } from './locales/zh-CN/checkout';
import { runtimeZhCN } from './locales/zh-CN/runtime';
import { experienceZhCN } from './locales/zh-CN/experience';
import { merchantOpsZhCN } from './locales/zh-CN/merchant-ops';
import { feedsZhCN } from './locales/zh-CN/feeds';
import { reportsZhCN } from './locales/zh-CN/reports';
import { reconciliationZhCN } from './locales/zh-CN/reconciliation';
import { protocolsZhCN } from './locales/zh-CN/protocols';
import { ucpBusinessZhCN } from './locales/zh-CN/ucp-business';

export const LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];

export const translations: Record<Exclude<Locale, 'en'>, LocaleTexts> = {
  'zh-CN': mergeTexts(
    commonZhCN,
    systemZhCN,
    developersZhCN,
    dispatchZhCN,
    merchantsZhCN,
    agentsZhCN,
    intentsZhCN,
    matchZhCN,
    recommendZhCN,
    cardsZhCN,
    proofZhCN,
    mandatesZhCN,
    checkoutZhCN,
    runtimeZhCN,
    experienceZhCN,
    merchantOpsZhCN,
    feedsZhCN,
    reportsZhCN,
    reconciliationZhCN,
    protocolsZhCN,
    ucpBusinessZhCN,
  ),
};

/** The document with the locale's texts in place; anything untranslated stays English. */
export function translate<T>(doc: T, locale: Exclude<Locale, 'en'>): T {
  return translateDocument(doc, translations[locale]);
}
