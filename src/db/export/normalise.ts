import { BIGINT_COLUMNS } from './tables.js';

/**
 * One row as the export writes it, the same whichever store it was read from: columns in
 * name order (the stores may list them differently), bigint columns as numbers (PostgreSQL
 * answers them as text). Everything else is already stored alike on both (0/1 booleans, ISO
 * text timestamps, JSON as text; migration 0001).
 */
export function normaliseRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of Object.keys(row).sort()) {
    const value = row[column];
    out[column] = BIGINT_COLUMNS.has(column) && typeof value === 'string' ? Number(value) : value;
  }
  return out;
}
