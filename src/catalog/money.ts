/** ISO 4217 currencies without minor units: their "cents" column holds whole units. */
export const ZERO_DECIMAL_CURRENCIES = new Set(['JPY', 'KRW', 'VND', 'CLP', 'ISK', 'UGX', 'PYG', 'XOF', 'XAF', 'RWF', 'KMF', 'GNF', 'VUV', 'XPF', 'BIF', 'DJF']);

export function minorUnitDigits(currency: string): 0 | 2 {
  return ZERO_DECIMAL_CURRENCIES.has(currency) ? 0 : 2;
}
