import { sql, type RawBuilder } from 'kysely';

/**
 * Case-insensitive "contains" over one column, the same on SQLite and PostgreSQL. LIKE
 * wildcards in the search text are escaped so `q=50%` finds "50%" literally.
 */
export function containsText(column: string, text: string): RawBuilder<boolean> {
  const escaped = text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql<boolean>`lower(${sql.ref(column)}) like ${`%${escaped}%`} escape '\\'`;
}
