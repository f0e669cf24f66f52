import { sql, type Kysely } from 'kysely';

/**
 * Who holds an idempotency claim. Each serving process registers itself in
 * `server_instances` (host, pid, heartbeat every 10 s); a `running` claim names its holder
 * and carries its own heartbeat, renewed while its request runs. A claim whose holder is
 * gone, or whose heartbeat is 30 s old, may be taken over, instead of blocking the key for
 * minutes after a crash. `claim_id` makes each claim distinct, so a request whose claim
 * was taken over cannot record its result over the new one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('server_instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Processes with the same host key share one process table, so their pids can be checked.
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('heartbeat_at', 'text', (c) => c.notNull())
    .execute();

  // One column per statement: SQLite's ALTER TABLE adds a single column at a time.
  await db.schema.alterTable('idempotency_keys').addColumn('holder', 'text').execute();
  await db.schema.alterTable('idempotency_keys').addColumn('claim_id', 'text').execute();
  await db.schema.alterTable('idempotency_keys').addColumn('heartbeat_at', 'text').execute();
  // Running claims are few; releasing a holder's claims must not scan 24 h of results.
  await db.schema
    .createIndex('idempotency_running_holder_idx')
    .on('idempotency_keys')
    .columns(['holder'])
    .where(sql.ref('state'), '=', 'running')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('idempotency_running_holder_idx').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('heartbeat_at').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('claim_id').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('holder').execute();
  await db.schema.dropTable('server_instances').execute();
}
