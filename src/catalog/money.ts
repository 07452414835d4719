/** ISO 4217 currencies without minor units: their "cents" column holds whole units. */
export const ZERO_DECIMAL_CURRENCIES = new Set(['JPY', 'KRW', 'VND', 'CLP', 'ISK', 'UGX', 'PYG', 'XOF', 'XAF', 'RWF', 'KMF', 'GNF', 'VUV', 'XPF', 'BIF', 'DJF']);

export function minorUnitDigits(currency: string): 0 | 2 {
  return ZERO_DECIMAL_CURRENCIES.has(currency) ? 0 : 2;
}

/** An amount in major units (12.5 USD) to the integer minor units stored (1250), per the currency's digits. */
export const toMinorUnits = (amount: number, currency: string) => Math.round(amount * 10 ** minorUnitDigits(currency));
/** Minor units back to the number the API shows. */
export const fromMinorUnits = (cents: number, currency: string) => cents / 10 ** minorUnitDigits(currency);
