import { ApiError } from '../../core/errors.js';
import { addDays, daysBetween, hasOwn, isCalendarDate } from '../../core/values.js';

/**
 * Schedules of issues and sub-tasks: `startDate`, `dueDate` (YYYY-MM-DD) and
 * `durationDays` (days from start to due). Any two determine the third; all three must
 * agree. Pure functions: they only read their arguments and throw INVALID_SCHEDULE.
 */
export interface Schedule {
  startDate: string | null;
  dueDate: string | null;
  durationDays: number | null;
}

/** The schedule fields a request sent; an absent key means "not sent", null means "clear". */
export interface ScheduleInput {
  startDate?: unknown;
  dueDate?: unknown;
  durationDays?: unknown;
}

const FIELDS = ['startDate', 'dueDate', 'durationDays'] as const;

const invalid = (field: string, message: string) => new ApiError('INVALID_SCHEDULE', { field }, { message });

/** The days from 0000-01-01 to 9999-12-31: no longer span fits the YYYY-MM-DD calendar. */
const MAX_DURATION_DAYS = 3_652_424;

function parseDate(value: unknown, field: 'startDate' | 'dueDate'): string | null {
  if (value === null || value === undefined) return null;
  if (!isCalendarDate(value)) throw invalid(field, `${field} must be a YYYY-MM-DD calendar date.`);
  return value;
}

function parseDuration(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_DURATION_DAYS) {
    throw new ApiError(
      'INVALID_SCHEDULE',
      { field: 'durationDays', min: 0, max: MAX_DURATION_DAYS },
      { message: `durationDays must be a whole number of days from 0 to ${MAX_DURATION_DAYS}.` },
    );
  }
  return value;
}

/** A date moved by a duration; landing outside the YYYY-MM-DD calendar is an invalid schedule. */
function shifted(date: string, days: number, field: 'startDate' | 'dueDate'): string {
  const result = addDays(date, days);
  if (!isCalendarDate(result)) throw invalid(field, `${field} would fall outside the YYYY-MM-DD calendar.`);
  return result;
}

/** Completes a schedule from the parts given: any two give the third; three must agree. */
function complete(startDate: string | null, dueDate: string | null, durationDays: number | null): Schedule {
  if (startDate && dueDate) {
    const span = daysBetween(startDate, dueDate);
    if (span < 0) throw invalid('dueDate', 'dueDate must be on or after startDate.');
    if (durationDays !== null && durationDays !== span) {
      throw invalid('durationDays', 'durationDays must equal the days from startDate to dueDate.');
    }
    return { startDate, dueDate, durationDays: span };
  }
  if (startDate && durationDays !== null)
    return { startDate, dueDate: shifted(startDate, durationDays, 'dueDate'), durationDays };
  if (dueDate && durationDays !== null)
    return { startDate: shifted(dueDate, -durationDays, 'startDate'), dueDate, durationDays };
  return { startDate, dueDate, durationDays };
}

/** The schedule of a new record from the fields of its create request. */
export function scheduleFromInput(input: ScheduleInput): Schedule {
  return complete(
    parseDate(input.startDate, 'startDate'),
    parseDate(input.dueDate, 'dueDate'),
    parseDuration(input.durationDays),
  );
}

export const sendsSchedule = (input: object): boolean => FIELDS.some((field) => hasOwn(input, field));

/**
 * A stored schedule changed by an update. When two or three fields are sent they decide
 * the schedule as on create. A single field keeps `startDate` as the anchor: a new
 * `dueDate` recomputes the duration, a new `durationDays` recomputes the due date, a new
 * `startDate` keeps the duration and moves the due date; null clears the field and the
 * duration that depended on it.
 */
export function applyScheduleChange(current: Schedule, input: ScheduleInput): Schedule {
  const sent = FIELDS.filter((field) => hasOwn(input, field));
  if (sent.length !== 1) return sent.length === 0 ? current : scheduleFromInput(input);
  const { startDate, dueDate, durationDays } = current;
  switch (sent[0]) {
    case 'startDate': {
      const start = parseDate(input.startDate, 'startDate');
      if (start === null) return { startDate: null, dueDate, durationDays: null };
      if (durationDays !== null)
        return { startDate: start, dueDate: shifted(start, durationDays, 'dueDate'), durationDays };
      return complete(start, dueDate, null);
    }
    case 'dueDate': {
      const due = parseDate(input.dueDate, 'dueDate');
      if (due === null) return { startDate, dueDate: null, durationDays: null };
      return complete(startDate, due, startDate ? null : durationDays);
    }
    case 'durationDays': {
      const duration = parseDuration(input.durationDays);
      if (duration === null) return { startDate, dueDate: startDate ? null : dueDate, durationDays: null };
      return complete(startDate, startDate ? null : dueDate, duration);
    }
  }
}
