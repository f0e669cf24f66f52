import { sql, type Kysely, type RawBuilder } from 'kysely';
import { REFERENCES, TENANT } from '../references.js';
import { findConstraintDrift } from './constraints.js';
import { findAllOrphans, type ScanScope } from './orphans.js';
import { rowKey } from './row-keys.js';

/** One broken reference or invariant: what is wrong, how many rows, a few of them. */
export interface IntegrityFinding {
  problem: string;
  count: number;
  sample: string[];
}

const SAMPLE = 5;
/**
 * Scans a store for every broken reference or invariant the schema cannot state by itself,
 * and for the ones it does state (a store restored from an old copy, or written with the
 * constraints off, may break them). Answers nothing for a sound store; `scope` limits the
 * scan to one workspace's rows.
 */
export async function checkStore(db: Kysely<any>, scope: ScanScope = {}): Promise<IntegrityFinding[]> {
  const findings: IntegrityFinding[] = (await findAllOrphans(db, scope)).map(({ reference, count, sample }) => ({
    problem: `${reference.table}.${reference.columns.join('+')} names no ${reference.target} row`,
    count,
    sample,
  }));
  // The constraints are the store's, not a workspace's: a scan of one workspace (an import) leaves them out.
  if (scope.workspaceId === undefined)
    for (const { reference, problem } of await findConstraintDrift(db))
      findings.push({
        problem: `the foreign key ${reference.name} is ${problem === 'missing' ? 'missing' : `not ON DELETE ${reference.onDelete}`}`,
        count: 1,
        sample: [`${reference.table}.${reference.columns.join('+')}`],
      });
  for (const check of [
    ...crossWorkspaceChecks(),
    ...eventLogChecks(),
    ...identityChecks(),
    ...kindChecks(),
    ...ownerChecks(),
    ...derivedCountChecks(),
  ]) {
    const where =
      scope.workspaceId === undefined
        ? check.where
        : sql<boolean>`r.workspace_id = ${scope.workspaceId} and ${check.where}`;
    const found = await rowsWhere(db, check.table, where);
    if (found) findings.push({ problem: check.problem, ...found });
  }
  return findings;
}

interface RowCheck {
  table: string;
  /** Holds for the broken rows of `table`, aliased `r`. */
  where: RawBuilder<boolean>;
  problem: string;
}

async function rowsWhere(
  db: Kysely<any>,
  table: string,
  where: RawBuilder<boolean>,
): Promise<Omit<IntegrityFinding, 'problem'> | undefined> {
  const { rows } = await sql<{
    n: number | string;
  }>`select count(*) as n from ${sql.id(table)} as r where ${where}`.execute(db);
  const count = Number(rows[0]?.n ?? 0);
  if (count === 0) return undefined;
  const sample = await sql<{
    key: string;
  }>`select ${rowKey(table)} as key from ${sql.id(table)} as r where ${where} limit ${SAMPLE}`.execute(db);
  return { count, sample: sample.rows.map((row) => String(row.key)) };
}

/** A reference must stay inside its workspace: the keys are global, so a key alone cannot tell. */
function crossWorkspaceChecks(): RowCheck[] {
  return REFERENCES.filter((r) => r.target !== 'workspaces' && TENANT.has(r.table) && TENANT.has(r.target)).map(
    (reference) => {
      const matches = reference.columns.map(
        (column, i) => sql`t.${sql.id(reference.targetColumns[i])} = r.${sql.id(column)}`,
      );
      return {
        table: reference.table,
        where: sql<boolean>`exists (select 1 from ${sql.id(reference.target)} as t where ${sql.join(matches, sql` and `)} and t.workspace_id <> r.workspace_id)`,
        problem: `${reference.table}.${reference.columns.join('+')} names a ${reference.target} row of another workspace`,
      };
    },
  );
}

/**
 * The event log's ids are no foreign keys (db/references.ts): retention prunes events and
 * jobs while the records naming them stay. But one that names another workspace's event or
 * job would have its payload delivered to this workspace's receiver (a tampered `wsx
 * import` file could do it: the ids are global).
 */
const EVENT_LOG_IDS = [
  { table: 'webhook_jobs', column: 'event_id', target: 'outbox_events', what: 'an event' },
  { table: 'webhook_deliveries', column: 'event_id', target: 'outbox_events', what: 'an event' },
  { table: 'webhook_deliveries', column: 'job_id', target: 'webhook_jobs', what: 'a delivery job' },
] as const;

function eventLogChecks(): RowCheck[] {
  return EVENT_LOG_IDS.map(({ table, column, target, what }) => ({
    table,
    where: sql<boolean>`exists (select 1 from ${sql.id(target)} as t where t.id = r.${sql.id(column)} and t.workspace_id <> r.workspace_id)`,
    problem: `${table}.${column} names ${what} of another workspace`,
  }));
}

/**
 * Columns that name an identity: a user id or `api-token:<name>`, two kinds in one column,
 * which no foreign key can state (writes check them inside their transaction).
 */
const IDENTITY_COLUMNS = [
  ['issues', 'assignee_id'],
  ['issues', 'reporter_id'],
  ['subtasks', 'assignee_id'],
  ['subtasks', 'reporter_id'],
  ['projects', 'owner_id'],
  ['milestones', 'owner_id'],
  ['discussion_groups', 'owner_id'],
  ['discussion_group_members', 'member_id'],
  ['agenda_owners', 'user_id'],
] as const;

function identityChecks(): RowCheck[] {
  return IDENTITY_COLUMNS.map(([table, column]) => {
    const value = sql.ref(`r.${column}`);
    return {
      table,
      where: sql<boolean>`${value} is not null
        and not exists (select 1 from users as u where u.id = ${value} and u.workspace_id = r.workspace_id)
        and not exists (select 1 from api_tokens as k where ${value} = 'api-token:' || k.name and k.workspace_id = r.workspace_id)`,
      problem: `${table}.${column} names no user or token of its workspace`,
    };
  });
}

/** Tables a `*_type` column names, and the record of that kind it must find. */
const KINDS: Record<string, string> = {
  issue: 'issues',
  project: 'projects',
  meeting: 'meetings',
  agenda_item: 'agenda_items',
  discussion_topic: 'discussion_topics',
  subtask: 'subtasks',
};

/** A pair of columns naming a record of one of several kinds (the kind in the first). */
const KIND_REFERENCES = [
  { table: 'work_links', kind: 'owner_type', id: 'owner_id' },
  { table: 'work_links', kind: 'target_type', id: 'target_id' },
  { table: 'tag_usages', kind: 'entity_type', id: 'entity_id' },
  { table: 'issues', kind: 'source_type', id: 'source_id' },
] as const;

function kindChecks(): RowCheck[] {
  return KIND_REFERENCES.map(({ table, kind, id }) => {
    const found = Object.entries(KINDS).map(
      ([name, target]) =>
        sql`(r.${sql.id(kind)} = ${name} and exists (select 1 from ${sql.id(target)} as t where t.id = r.${sql.id(id)} and t.workspace_id = r.workspace_id))`,
    );
    return {
      table,
      where: sql<boolean>`r.${sql.id(id)} is not null and not (${sql.join(found, sql` or `)})`,
      problem: `${table}.${id} names no record of its ${kind} in its workspace`,
    };
  });
}

/** Comments and attachments belong to exactly one owner; the columns allow two or none. */
function ownerChecks(): RowCheck[] {
  const exactlyOne = (a: string, b: string) =>
    sql<boolean>`(case when r.${sql.id(a)} is null then 0 else 1 end) + (case when r.${sql.id(b)} is null then 0 else 1 end) <> 1`;
  return [
    { table: 'comments', where: exactlyOne('issue_id', 'milestone_id'), problem: 'comments with no owner or two' },
    {
      table: 'attachments',
      where: exactlyOne('issue_id', 'agenda_item_id'),
      problem: 'attachments with no owner or two',
    },
  ];
}

/** Counts the triggers keep (migration 0029_issue_link_counts) must match the rows they count. */
function derivedCountChecks(): RowCheck[] {
  return [
    {
      table: 'issues',
      where: sql<boolean>`r.link_count <> (select count(*) from issue_links as l where l.issue_id = r.id)`,
      problem: 'issues whose link_count differs from their link sides',
    },
  ];
}
