/**
 * Money, in one place. Amounts are stored as integer minor units of their ISO 4217 currency
 * (docs/CONTRACT.md#money) and shown by the API as major-unit numbers. How many minor units a major unit has
 * depends on the currency: 100 for most, 1 for the yen and the won, 1000 for the Kuwaiti dinar.
 * Every conversion between the two goes through here, with the currency, so a JPY price of 2400
 * is stored as 2400 and a KWD price of 12.345 as 12345.
 */

/** ISO 4217 currencies without minor units: their "cents" column holds whole units. */
export const ZERO_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'ISK',
  'JPY',
  'KMF',
  'KRW',
  'PYG',
  'RWF',
  'UGX',
  'UYI',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);

/** ISO 4217 currencies with three decimal places. */
export const THREE_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

export type MinorDigits = 0 | 2 | 3;

/** Decimal places of a currency's major unit (2 for any code not listed above). */
export function minorUnitDigits(currency: string): MinorDigits {
  const c = currency.toUpperCase();
  if (ZERO_DECIMAL_CURRENCIES.has(c)) return 0;
  if (THREE_DECIMAL_CURRENCIES.has(c)) return 3;
  return 2;
}

/** An amount in major units (12.5 USD) to the integer minor units stored (1250), per the currency's digits. */
export function toMinorUnits(amount: number, currency: string): number {
  return Math.round(amount * 10 ** minorUnitDigits(currency));
}

/** Minor units back to the number the API shows (1250 USD → 12.5; 2400 JPY → 2400; 12345 KWD → 12.345). */
export function fromMinorUnits(minor: number | string, currency: string): number {
  const digits = minorUnitDigits(currency);
  // Divide then round to the currency's digits so binary fractions never leak (0.1 + 0.2 style).
  return Number((Number(minor) / 10 ** digits).toFixed(digits));
}

/** As fromMinorUnits, passing null through (optional amounts such as budget bounds). */
export function fromMinorUnitsOrNull(minor: number | string | null | undefined, currency: string): number | null {
  return minor === null || minor === undefined ? null : fromMinorUnits(minor, currency);
}

/** A decimal string in major units ("19.99", "2400", "12.345") parsed exactly into minor units; null when not a plain amount or when it has more decimals than the currency. */
export function parseMajorUnits(amount: string, currency: string): number | null {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!m) return null;
  const digits = minorUnitDigits(currency);
  const frac = m[2] ?? '';
  if (frac.replace(/0+$/, '').length > digits) return null;
  const minor = Number(m[1]) * 10 ** digits + Number(frac.slice(0, digits).padEnd(digits, '0') || 0);
  return Number.isSafeInteger(minor) ? minor : null;
}

/** The amount as text with the currency's own number of decimals ("12.50", "2400", "12.345"). */
export function formatMajorUnits(minor: number, currency: string): string {
  const digits = minorUnitDigits(currency);
  return (minor / 10 ** digits).toFixed(digits);
}
