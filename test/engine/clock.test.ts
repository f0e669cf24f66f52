import { describe, expect, it } from 'vitest';
import { nowIso, todayUtc } from '../../src/core/clock.js';

describe('clock', () => {
  it('formats each instant as ISO 8601, the same instant twice in a row included', () => {
    expect(nowIso(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(nowIso(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(nowIso(1)).toBe('1970-01-01T00:00:00.001Z');
    expect(nowIso(1_795_000_000_123)).toBe(new Date(1_795_000_000_123).toISOString());
    expect(nowIso(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(todayUtc(1_795_000_000_123)).toBe(new Date(1_795_000_000_123).toISOString().slice(0, 10));
  });

  it('refuses an instant a date cannot hold, and still formats the next one', () => {
    expect(nowIso(5)).toBe('1970-01-01T00:00:00.005Z');
    expect(() => nowIso(Number.NaN)).toThrow(RangeError);
    expect(() => nowIso(8.64e15 + 1)).toThrow(RangeError);
    expect(nowIso(6)).toBe('1970-01-01T00:00:00.006Z');
    expect(nowIso(5)).toBe('1970-01-01T00:00:00.005Z');
  });
});
