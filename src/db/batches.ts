/**
 * Bound variables per statement. A list in a request becomes rows written in statements of
 * at most this many variables, far below SQLite's 32,766 and PostgreSQL's 65,535, so no
 * request can build a statement the database refuses or spends long planning.
 */
export const MAX_VARIABLES = 400;

/**
 * `rows` cut into batches whose statements each bind at most MAX_VARIABLES variables:
 * `variablesPerRow` for every row, plus `fixed` for the rest of the statement.
 */
export function batches<T>(rows: T[], variablesPerRow: number, fixed = 0): T[][] {
  const size = Math.max(1, Math.floor((MAX_VARIABLES - fixed) / variablesPerRow));
  const out: T[][] = [];
  for (let start = 0; start < rows.length; start += size) out.push(rows.slice(start, start + size));
  return out;
}
