import { sql, type Kysely, type RawBuilder } from 'kysely';
import { REFERENCES, TENANT, type Reference } from '../references.js';
import { rowKey } from './row-keys.js';

/** Rows of a reference that point at nothing, as found or repaired. */
export interface OrphanFinding {
  reference: Reference;
  count: number;
  /** A few of the rows' keys, to look at (the primary key, or the referencing columns). */
  sample: string[];
}

/** How many rows a finding lists by key: enough to look at, bounded for a large store. */
const SAMPLE = 5;

/** The rows of `reference.table` (aliased `r`) whose reference is set but finds no row. */
export function danglingCondition(reference: Reference): RawBuilder<boolean> {
  const set = reference.columns.map((column) => sql`r.${sql.id(column)} is not null`);
  const matches = reference.columns.map(
    (column, i) => sql`t.${sql.id(reference.targetColumns[i])} = r.${sql.id(column)}`,
  );
  return sql<boolean>`${sql.join(set, sql` and `)} and not exists (select 1 from ${sql.id(reference.target)} as t where ${sql.join(matches, sql` and `)})`;
}

/** Limits a scan to one workspace's rows (a table without `workspace_id` is then skipped). */
export interface ScanScope {
  workspaceId?: string;
}

/** The rows of one reference that point at nothing. */
export async function findOrphans(
  db: Kysely<any>,
  reference: Reference,
  { workspaceId }: ScanScope = {},
): Promise<OrphanFinding | undefined> {
  const table = sql.id(reference.table);
  const where =
    workspaceId === undefined
      ? danglingCondition(reference)
      : sql<boolean>`r.workspace_id = ${workspaceId} and ${danglingCondition(reference)}`;
  const { rows } = await sql<{
    n: number | string;
  }>`select count(*) as n from ${table} as r where ${where}`.execute(db);
  const count = Number(rows[0]?.n ?? 0);
  if (count === 0) return undefined;
  const sample = await sql<{
    key: string;
  }>`select ${rowKey(reference.table)} as key from ${table} as r where ${where} limit ${SAMPLE}`.execute(db);
  return { reference, count, sample: sample.rows.map((row) => String(row.key)) };
}

/** Every reference's rows that point at nothing. */
export async function findAllOrphans(db: Kysely<any>, scope: ScanScope = {}): Promise<OrphanFinding[]> {
  const found: OrphanFinding[] = [];
  for (const reference of REFERENCES) {
    if (scope.workspaceId !== undefined && !TENANT.has(reference.table)) continue;
    const finding = await findOrphans(db, reference, scope);
    if (finding) found.push(finding);
  }
  return found;
}

/** A dangling reference the store cannot repair by itself: a row that means nothing without it. */
export class UnrepairableOrphans extends Error {
  constructor(readonly findings: OrphanFinding[]) {
    super(
      `rows point at records that do not exist and cannot be detached: ${findings
        .map((f) => `${f.count} in ${f.reference.table}.${f.reference.columns.join('+')} (${f.sample.join(', ')})`)
        .join('; ')}. Restore the missing records (or remove those rows), then start again; \`wsx check\` lists them`,
    );
    this.name = 'UnrepairableOrphans';
  }
}

/** Bounds the passes: deleting a row can leave its own children dangling, a chain a few deep. */
const MAX_PASSES = 10;

/**
 * Repairs every dangling reference as its delete rule would have, had the store enforced it
 * all along: `set-null` detaches the row (clears `columns[0]`), `cascade` deletes it. Goes on
 * until none is left, and answers what it did (the caller reports it: nothing is removed
 * silently). Refuses, changing nothing it has not already reported, when a `restrict`
 * reference's row points at nothing: that row must be repaired by hand.
 */
export async function repairOrphans(db: Kysely<any>): Promise<OrphanFinding[]> {
  const repaired: OrphanFinding[] = [];
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const found = await findAllOrphans(db);
    if (found.length === 0) return repaired;
    const refused = found.filter((finding) => finding.reference.onDelete === 'restrict');
    if (refused.length > 0) throw new UnrepairableOrphans(refused);
    for (const finding of found) {
      const { reference } = finding;
      const table = sql.id(reference.table);
      // Kysely's builders cannot alias the target of an UPDATE or DELETE on both stores; the
      // condition names the row `r`, so the statement does too.
      if (reference.onDelete === 'set-null') {
        await sql`update ${table} as r set ${sql.id(reference.columns[0])} = null where ${danglingCondition(reference)}`.execute(
          db,
        );
      } else {
        await sql`delete from ${table} as r where ${danglingCondition(reference)}`.execute(db);
      }
      repaired.push(finding);
    }
  }
  throw new Error(`dangling references still found after ${MAX_PASSES} passes of repair`);
}
