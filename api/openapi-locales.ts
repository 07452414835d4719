/**
 * Localized views of the OpenAPI document. English is the source; other locales translate the
 * `summary` and `description` texts only, so paths, methods and field names are identical. A
 * translation is keyed by what it describes (operation id and response status, parameter or field;
 * schema name and field path: api/openapi-text.ts), never by its English wording, so editing the
 * English keeps the translation. A text without a translation is served in English (the fallback);
 * test/openapi-locales.test.ts fails on a translation whose operation or field no longer exists and
 * on an operation without a translated summary.
 */
import { commonZhCN } from './openapi-common.zh-CN';
import { mergeTexts, translateDocument, type LocaleTexts } from './openapi-text';
import { systemZhCN } from './routes/system.zh-CN';
import { developersZhCN } from './routes/developers.zh-CN';
import { dispatchZhCN } from './routes/dispatch.zh-CN';
import { merchantsZhCN } from './routes/merchants.zh-CN';
import { agentsZhCN } from './routes/agents.zh-CN';
import { intentsZhCN } from './routes/intents.zh-CN';
import { matchZhCN } from './routes/match.zh-CN';
import { recommendZhCN } from './routes/recommend.zh-CN';
import { cardsZhCN } from './routes/cards.zh-CN';
import { proofZhCN } from './routes/proof.zh-CN';
import { mandatesZhCN } from './routes/mandates.zh-CN';
import { checkoutZhCN } from './routes/checkout.zh-CN';
import { runtimeZhCN } from './routes/runtime.zh-CN';
import { experienceZhCN } from './routes/experience.zh-CN';
import { merchantOpsZhCN } from './routes/merchant-ops.zh-CN';
import { feedsZhCN } from './routes/feeds.zh-CN';
import { reportsZhCN } from './routes/reports.zh-CN';
import { reconciliationZhCN } from './routes/reconciliation.zh-CN';
import { protocolsZhCN } from './routes/protocols.zh-CN';

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
  ),
};

/** The document with the locale's texts in place; anything untranslated stays English. */
export function translate<T>(doc: T, locale: Exclude<Locale, 'en'>): T {
  return translateDocument(doc, translations[locale]);
}
