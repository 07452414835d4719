import { describe, expect, it } from 'vitest';
import { attemptDelayMs, JITTER, MAX_RETRY_AFTER_S, parseRetryAfter } from '../../src/dispatch/retry-schedule';
import { intentCategoryTags } from '../../src/dispatch/category-terms';

const SCHEDULE = [0, 5, 300, 1800, 7200, 18000, 36000];

describe('retry schedule (docs/CONTRACT.md#intentsurge)', () => {
  it('waits the scheduled step with at most ±20 % jitter, and ends after the last step', () => {
    for (const r of [0, 0.25, 0.5, 0.75, 0.9999]) {
      SCHEDULE.forEach((s, i) => {
        const ms = attemptDelayMs(SCHEDULE, i, () => r)!;
        expect(ms).toBeGreaterThanOrEqual(Math.floor(s * (1 - JITTER) * 1000));
        expect(ms).toBeLessThanOrEqual(Math.ceil(s * (1 + JITTER) * 1000));
      });
      expect(attemptDelayMs(SCHEDULE, SCHEDULE.length, () => r)).toBeNull();
    }
    expect(attemptDelayMs(SCHEDULE, 1, () => 0.5)).toBe(5000);
    expect(attemptDelayMs(SCHEDULE, 0, () => 0.99)).toBe(0); // "immediately" stays immediate
  });

  it('a Retry-After longer than the step wins, up to a day; a shorter one does not shorten the step', () => {
    expect(attemptDelayMs(SCHEDULE, 1, () => 0.5, 60)).toBe(60_000);
    expect(attemptDelayMs(SCHEDULE, 1, () => 0.5, 2)).toBe(5000);
    expect(attemptDelayMs(SCHEDULE, 1, () => 0.5, 10 * MAX_RETRY_AFTER_S)).toBe(MAX_RETRY_AFTER_S * 1000);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});

describe('merchant matching: category tags an intent states', () => {
  it('are its tags that name a category of the taxonomy', () => {
    expect(intentCategoryTags(['trail', 'running', 'shoes', 'footwear', 'zzq'])).toEqual(expect.arrayContaining(['footwear']));
    expect(intentCategoryTags(['zzq', 'gift'])).toEqual([]);
  });
});
