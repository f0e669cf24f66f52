import { databaseFault, describeDatabaseError } from '../db/errors.js';

export interface WorkerLog {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/**
 * Logs a background worker's failures without flooding: while the store is down or full,
 * one warning when the outage begins and one line when the store answers again, instead of
 * an error with a stack on every poll. Any other failure is logged as an error each time.
 */
export class OutageLog {
  private outage = false;

  constructor(
    private readonly log: WorkerLog,
    private readonly worker: string,
  ) {}

  failed(error: unknown, message: string, details: object = {}): void {
    const fault = databaseFault(error);
    if (!fault) {
      this.log.error({ ...details, err: error }, message);
      return;
    }
    if (this.outage) return;
    this.outage = true;
    const state = fault === 'full' ? 'full' : 'unavailable';
    this.log.warn(
      { cause: describeDatabaseError(error) },
      `${this.worker}: the database is ${state}; retrying until it answers`,
    );
  }

  succeeded(): void {
    if (!this.outage) return;
    this.outage = false;
    this.log.info({}, `${this.worker}: the database answers again`);
  }
}
