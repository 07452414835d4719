import { describe, expect, it } from 'vitest';
import { formatMajorUnits, fromMinorUnits, minorUnitDigits, parseMajorUnits, toMinorUnits } from '../../src/money';
import { MerchantQueryAnswer } from '../../src/schemas/runtime';

describe('money module', () => {
  it('knows each currency’s minor units', () => {
    expect([
      minorUnitDigits('USD'),
      minorUnitDigits('JPY'),
      minorUnitDigits('krw'),
      minorUnitDigits('KWD'),
      minorUnitDigits('BHD'),
      minorUnitDigits('EUR'),
    ]).toEqual([2, 0, 0, 3, 3, 2]);
    expect(toMinorUnits(12.5, 'USD')).toBe(1250);
    expect(toMinorUnits(2400, 'JPY')).toBe(2400);
    expect(toMinorUnits(12.345, 'KWD')).toBe(12345);
    expect(fromMinorUnits(2400, 'JPY')).toBe(2400);
    expect(fromMinorUnits(12345, 'KWD')).toBe(12.345);
    expect(fromMinorUnits('1999', 'USD')).toBe(19.99);
    expect(parseMajorUnits('12.345', 'KWD')).toBe(12345);
    expect(parseMajorUnits('2400', 'JPY')).toBe(2400);
    expect(parseMajorUnits('24.5', 'JPY')).toBeNull();
    expect(parseMajorUnits('19.999', 'USD')).toBeNull();
    expect(parseMajorUnits('19.90', 'USD')).toBe(1990);
    expect([formatMajorUnits(2400, 'JPY'), formatMajorUnits(12345, 'KWD'), formatMajorUnits(1250, 'USD')]).toEqual([
      '2400',
      '12.345',
      '12.50',
    ]);
  });
});

describe('an amount is at least one minor unit of its currency', () => {
  const offer = (price: number, currency?: string) => ({
    proposals: [{ product_id: 1, offer_title: 'A mug', price, ...(currency ? { currency } : {}) }],
  });
  it('in a merchant’s answer to a runtime query, as in POST /v1/proposals', () => {
    for (const [price, currency] of [
      [5e-324, undefined],
      [0.004, 'USD'],
      [0.4, 'JPY'],
    ] as const) {
      const res = MerchantQueryAnswer.safeParse(offer(price, currency));
      expect(res.success, `${price} ${currency ?? 'USD'}`).toBe(false);
      expect(res.error!.issues[0]!.path).toEqual(['proposals', 0, 'price']);
    }
    for (const [price, currency] of [
      [0.01, 'USD'],
      [1, 'JPY'],
      [0.01, 'KWD'],
    ] as const)
      expect(MerchantQueryAnswer.safeParse(offer(price, currency)).success, `${price} ${currency}`).toBe(true);
  });
});
