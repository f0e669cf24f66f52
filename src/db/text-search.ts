import { sql, type RawBuilder } from 'kysely';

/**
 * Case-insensitive "contains" over one text column, the same on SQLite and PostgreSQL.
 * LIKE wildcards in the search text are escaped, so `q=50%` finds "50%" literally; a null
 * column matches nothing.
 */
export function containsText(column: string, text: string): RawBuilder<boolean> {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`lower(coalesce(${sql.ref(column)}, '')) like ${pattern} escape '\\'`;
}
