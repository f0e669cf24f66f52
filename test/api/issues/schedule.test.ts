import { describe, expect, it } from 'vitest';
import {
  applyScheduleChange,
  scheduleFromInput,
  sendsSchedule,
  type Schedule,
} from '../../../src/modules/issues/schedule.js';

const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as { code?: string; details?: unknown }).code;
  }
  return undefined;
};

describe('scheduleFromInput', () => {
  it('derives the third field from any two', () => {
    expect(scheduleFromInput({ startDate: '2026-01-30', dueDate: '2026-02-02' })).toEqual({
      startDate: '2026-01-30',
      dueDate: '2026-02-02',
      durationDays: 3,
    });
    expect(scheduleFromInput({ startDate: '2026-02-27', durationDays: 3 })).toEqual({
      startDate: '2026-02-27',
      dueDate: '2026-03-02',
      durationDays: 3,
    });
    expect(scheduleFromInput({ dueDate: '2026-01-02', durationDays: 2 })).toEqual({
      startDate: '2025-12-31',
      dueDate: '2026-01-02',
      durationDays: 2,
    });
  });

  it('keeps a single field and accepts an agreeing triple', () => {
    expect(scheduleFromInput({})).toEqual({ startDate: null, dueDate: null, durationDays: null });
    expect(scheduleFromInput({ dueDate: '2026-05-01' })).toEqual({
      startDate: null,
      dueDate: '2026-05-01',
      durationDays: null,
    });
    expect(scheduleFromInput({ durationDays: 4 })).toEqual({ startDate: null, dueDate: null, durationDays: 4 });
    expect(scheduleFromInput({ startDate: '2026-05-01', dueDate: '2026-05-01', durationDays: 0 })).toMatchObject({
      durationDays: 0,
    });
  });

  it('refuses disagreeing, reversed, negative and malformed schedules', () => {
    for (const input of [
      { startDate: '2026-05-01', dueDate: '2026-05-03', durationDays: 1 },
      { startDate: '2026-05-03', dueDate: '2026-05-01' },
      { durationDays: -1 },
      { durationDays: 1.5 },
      { durationDays: '3' },
      { startDate: '2026-13-01' },
      { dueDate: '2026-5-1' },
      { startDate: 20260501 },
    ]) {
      expect(
        codeOf(() => scheduleFromInput(input)),
        JSON.stringify(input),
      ).toBe('INVALID_SCHEDULE');
    }
  });
});

describe('applyScheduleChange', () => {
  const planned: Schedule = { startDate: '2026-04-01', dueDate: '2026-04-06', durationDays: 5 };

  it('changes nothing when no schedule field is sent', () => {
    expect(applyScheduleChange(planned, {})).toEqual(planned);
    expect(sendsSchedule({ title: 'x' })).toBe(false);
    expect(sendsSchedule({ dueDate: null })).toBe(true);
  });

  it('keeps startDate as the anchor for a single field', () => {
    expect(applyScheduleChange(planned, { dueDate: '2026-04-11' })).toEqual({
      ...planned,
      dueDate: '2026-04-11',
      durationDays: 10,
    });
    expect(applyScheduleChange(planned, { durationDays: 1 })).toEqual({
      ...planned,
      dueDate: '2026-04-02',
      durationDays: 1,
    });
    expect(applyScheduleChange(planned, { startDate: '2026-04-03' })).toEqual({
      startDate: '2026-04-03',
      dueDate: '2026-04-08',
      durationDays: 5,
    });
  });

  it('clears the duration with the date it depended on', () => {
    expect(applyScheduleChange(planned, { dueDate: null })).toEqual({
      startDate: '2026-04-01',
      dueDate: null,
      durationDays: null,
    });
    expect(applyScheduleChange(planned, { startDate: null })).toEqual({
      startDate: null,
      dueDate: '2026-04-06',
      durationDays: null,
    });
    expect(applyScheduleChange(planned, { durationDays: null })).toEqual({
      startDate: '2026-04-01',
      dueDate: null,
      durationDays: null,
    });
  });

  it('works from a partial schedule', () => {
    const dueOnly: Schedule = { startDate: null, dueDate: '2026-04-06', durationDays: null };
    expect(applyScheduleChange(dueOnly, { startDate: '2026-04-01' })).toEqual(planned);
    expect(applyScheduleChange(dueOnly, { durationDays: 5 })).toEqual(planned);
    expect(applyScheduleChange(dueOnly, { durationDays: null })).toEqual(dueOnly);
    const durationOnly: Schedule = { startDate: null, dueDate: null, durationDays: 5 };
    expect(applyScheduleChange(durationOnly, { startDate: '2026-04-01' })).toEqual(planned);
    expect(applyScheduleChange(durationOnly, { dueDate: '2026-04-06' })).toEqual(planned);
  });

  it('lets two or three sent fields decide as on create', () => {
    expect(applyScheduleChange(planned, { startDate: '2026-06-01', dueDate: '2026-06-03' })).toEqual({
      startDate: '2026-06-01',
      dueDate: '2026-06-03',
      durationDays: 2,
    });
    expect(applyScheduleChange(planned, { dueDate: '2026-06-10', durationDays: 3 })).toEqual({
      startDate: '2026-06-07',
      dueDate: '2026-06-10',
      durationDays: 3,
    });
    expect(applyScheduleChange(planned, { startDate: null, dueDate: null, durationDays: null })).toEqual({
      startDate: null,
      dueDate: null,
      durationDays: null,
    });
  });

  it('refuses a change that would put the due date before the start', () => {
    expect(codeOf(() => applyScheduleChange(planned, { dueDate: '2026-03-31' }))).toBe('INVALID_SCHEDULE');
    expect(
      codeOf(() =>
        applyScheduleChange(
          { startDate: null, dueDate: '2026-04-06', durationDays: null },
          { startDate: '2026-04-07' },
        ),
      ),
    ).toBe('INVALID_SCHEDULE');
    expect(codeOf(() => applyScheduleChange(planned, { durationDays: -3 }))).toBe('INVALID_SCHEDULE');
  });
});
