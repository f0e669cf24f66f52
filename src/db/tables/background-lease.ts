/** Row type of the single-runner lease (see migration 0019_background_lease). */

export interface BackgroundLeaseRow {
  name: string;
  holder_id: string;
  holder_host: string;
  holder_pid: number;
  /** ISO timestamp; past it, the lease is free. */
  expires_at: string;
}

export interface BackgroundLeaseTables {
  background_leases: BackgroundLeaseRow;
}
