import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.js';
import { checkStore } from '../integrity/check.js';
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  latestMigration,
  type ExportEnd,
  type ExportHeader,
  type ExportLine,
} from './format.js';
import { EXPORTED_TABLES, withoutDerived, type ExportedTable } from './tables.js';

/** Rows per insert statement: well under both stores' limit on bound parameters. */
const BATCH_SIZE = 100;

/** A file this server cannot import, or a workspace it already has: nothing was written. */
export class ImportError extends Error {
  override name = 'ImportError';
}

type AnyDb = Kysely<Record<string, Record<string, unknown>>>;

/**
 * Imports a workspace export (export.ts) read line by line: all of it in one transaction,
 * or nothing. Refuses a file of another schema, and a workspace whose id or slug this store
 * already has. Answers the workspace and the rows written per table.
 */
export async function importWorkspace(
  database: Database,
  lines: AsyncIterable<string>,
): Promise<{ workspace: ExportHeader['workspace']; counts: Record<string, number> }> {
  const iterator = nonEmpty(lines)[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw new ImportError('the file is empty');
  const header = checkHeader(first.value);
  const counts = await database.db.transaction().execute(async (trx) => {
    const db = trx as unknown as AnyDb;
    // Rows arrive table by table; a reference is judged once all of them are in, below.
    await deferReferenceChecks(trx, database.dialect);
    await refuseExisting(db, header.workspace);
    const written = await insertAll(db, header.workspace.id, { [Symbol.asyncIterator]: () => iterator });
    await checkCounts(db, header.workspace.id, written);
    await refuseBrokenReferences(trx, header.workspace.id);
    return written;
  });
  return { workspace: header.workspace, counts };
}

async function* nonEmpty(lines: AsyncIterable<string>): AsyncGenerator<string> {
  for await (const line of lines) if (line.trim() !== '') yield line;
}

function parse(line: string, what: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new ImportError(`${what} is not JSON`);
  }
}

function checkHeader(line: string): ExportHeader {
  const header = parse(line, 'the first line') as Partial<ExportHeader> | null;
  if (header?.format !== EXPORT_FORMAT || !header.workspace?.id || !header.workspace.slug)
    throw new ImportError(`not a workspace export: the first line must be a "${EXPORT_FORMAT}" header`);
  if (header.version !== EXPORT_VERSION)
    throw new ImportError(
      `export format version ${header.version} is not supported (this build reads ${EXPORT_VERSION})`,
    );
  const schema = latestMigration();
  if (header.schema !== schema)
    throw new ImportError(
      `the file was exported at schema "${header.schema}", this build is at "${schema}": ` +
        'import it with the same version of wsx that exported it',
    );
  return header as ExportHeader;
}

async function deferReferenceChecks(trx: Kysely<any>, dialect: Database['dialect']): Promise<void> {
  if (dialect === 'postgres') await sql`set constraints all deferred`.execute(trx);
  else await sql`pragma defer_foreign_keys = on`.execute(trx);
}

/**
 * The foreign keys would refuse a broken file at commit without saying which row; this
 * names them. It also refuses what a key cannot see: a reference to another workspace's
 * record, an identity no user or token of the workspace has.
 */
async function refuseBrokenReferences(trx: Kysely<any>, workspaceId: string): Promise<void> {
  const findings = await checkStore(trx, { workspaceId });
  if (findings.length === 0) return;
  throw new ImportError(
    `the file's rows break references, nothing was imported: ${findings
      .map(({ problem, count, sample }) => `${count} × ${problem} (${sample.join(', ')})`)
      .join('; ')}`,
  );
}

async function refuseExisting(db: AnyDb, workspace: ExportHeader['workspace']): Promise<void> {
  const existing = await db
    .selectFrom('workspaces')
    .select(['id', 'slug'])
    .where((eb) => eb.or([eb('id', '=', workspace.id), eb('slug', '=', workspace.slug)]))
    .executeTakeFirst();
  if (existing)
    throw new ImportError(
      `this store already has workspace "${String(existing.slug)}" (${String(existing.id)}); ` +
        `the file holds "${workspace.slug}" (${workspace.id}); nothing was imported`,
    );
}

const SPECS = new Map(EXPORTED_TABLES.map((spec) => [spec.table, spec]));

/** Inserts the row lines in batches; every row must belong to the header's workspace. */
async function insertAll(
  db: AnyDb,
  workspaceId: string,
  lines: AsyncIterable<string>,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = Object.fromEntries(EXPORTED_TABLES.map((spec) => [spec.table, 0]));
  let batch: { table: string; rows: Record<string, unknown>[] } | undefined;
  const flush = async () => {
    if (batch && batch.rows.length > 0) await db.insertInto(batch.table).values(batch.rows).execute();
    batch = undefined;
  };
  let number = 1;
  let end: ExportEnd['end'] | undefined;
  for await (const line of lines) {
    number += 1;
    const value = parse(line, `line ${number}`);
    if (end) throw new ImportError(`line ${number}: rows after the closing line`);
    if (isEnd(value)) {
      end = value.end;
      continue;
    }
    const { table, row } = checkLine(value, number, workspaceId);
    if (batch?.table !== table || batch.rows.length >= BATCH_SIZE) {
      await flush();
      batch = { table, rows: [] };
    }
    batch.rows.push(row);
    counts[table] += 1;
  }
  await flush();
  if (!end) throw new ImportError('the file ends before its closing line: the export was cut short');
  for (const spec of EXPORTED_TABLES)
    if ((end.rows[spec.table] ?? 0) !== counts[spec.table])
      throw new ImportError(
        `${spec.table}: the file has ${counts[spec.table]} rows, its closing line says ${end.rows[spec.table]}`,
      );
  return counts;
}

const isEnd = (value: unknown): value is ExportEnd => {
  const rows = (value as Partial<ExportEnd> | null)?.end?.rows;
  return typeof rows === 'object' && rows !== null;
};

function checkLine(value: unknown, number: number, workspaceId: string): ExportLine {
  const line = value as Partial<ExportLine> | null;
  const spec = typeof line?.table === 'string' ? SPECS.get(line.table as ExportedTable['table']) : undefined;
  if (!spec || typeof line?.row !== 'object' || line.row === null)
    throw new ImportError(`line ${number}: not a row of an exported table`);
  if (line.row[spec.scope] !== workspaceId)
    throw new ImportError(`line ${number}: a ${spec.table} row of another workspace than the header's`);
  return { table: spec.table, row: withoutDerived(spec, line.row) };
}

/** The store must now hold exactly the rows the file had, table by table. */
async function checkCounts(db: AnyDb, workspaceId: string, written: Record<string, number>): Promise<void> {
  for (const spec of EXPORTED_TABLES) {
    let query = db
      .selectFrom(spec.table)
      .select((eb) => eb.fn.countAll().as('n'))
      .where(spec.scope, '=', workspaceId);
    if (spec.onlyNull) query = query.where(spec.onlyNull, 'is', null);
    const { n } = await query.executeTakeFirstOrThrow();
    if (Number(n) !== written[spec.table])
      throw new ImportError(`${spec.table}: the file has ${written[spec.table]} rows, the store ${Number(n)}`);
  }
}
