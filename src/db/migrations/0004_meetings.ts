import type { Kysely } from 'kysely';

/** The meetings area's tables. */
export async function up(_db: Kysely<any>): Promise<void> {}
