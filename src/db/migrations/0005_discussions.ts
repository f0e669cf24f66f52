import type { Kysely } from 'kysely';

/** The discussions area's tables. */
export async function up(_db: Kysely<any>): Promise<void> {}
