/** Row types of the tables that keep track of serving processes (see migration 0010_idempotency_holder). */

/** One serving process: registered when it starts, heartbeat every 10 s, removed when it stops. */
export interface ServerInstanceRow {
  id: string;
  /** Host name, boot id and pid namespace: processes with equal values can check each other's pid. */
  host: string;
  pid: number;
  started_at: string;
  heartbeat_at: string;
}

export interface ReliabilityTables {
  server_instances: ServerInstanceRow;
}
