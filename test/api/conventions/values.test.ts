import { describe, expect, it } from 'vitest';
import { isCalendarDate, normaliseDatetime } from '../../../src/core/values.js';

describe('isCalendarDate', () => {
  it('accepts real dates of every year, including years below 100', () => {
    for (const date of ['2026-02-28', '2024-02-29', '0050-06-15', '0001-01-01', '9999-12-31'])
      expect(isCalendarDate(date)).toBe(true);
  });

  it('refuses impossible or malformed dates and non-strings', () => {
    for (const value of ['2026-02-29', '2026-13-01', '2026-1-5', '2026-01-05T00:00:00Z', '', 20260105, null])
      expect(isCalendarDate(value)).toBe(false);
  });
});

describe('normaliseDatetime', () => {
  it('normalises an offset datetime to UTC Z and refuses one without an offset', () => {
    expect(normaliseDatetime('2026-03-01T10:00:00+02:00')).toBe('2026-03-01T08:00:00.000Z');
    expect(normaliseDatetime('2026-03-01T10:00:00')).toBeUndefined();
    expect(normaliseDatetime('2026-02-30T10:00:00Z')).toBeUndefined();
  });
});
