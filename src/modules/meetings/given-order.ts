/**
 * The rows in the order a reorder request gives, when `ids` names every one of them exactly
 * once; undefined otherwise (an id missing, unknown or repeated, or not a list), so the caller
 * can answer its own error with the ids it expected.
 */
export function rowsInGivenOrder<Row extends { id: string }>(rows: Row[], ids: unknown): Row[] | undefined {
  if (!Array.isArray(ids) || ids.length !== rows.length || new Set(ids).size !== ids.length) return undefined;
  const byId = new Map(rows.map((row) => [row.id, row]));
  const ordered = ids.map((id: unknown) => (typeof id === 'string' ? byId.get(id) : undefined));
  return ordered.every((row): row is Row => row !== undefined) ? ordered : undefined;
}
