import type { Kysely } from 'kysely';
import { newId } from '../../../core/ids.js';
import type { DB, StatusRow } from '../../../db/schema.js';
import { fail } from '../errors.js';
import { at, checkString, readEntries, readList, requiredString, type EntryFormat, type Fields } from '../fields.js';
import { changedFields, sameSet } from './converge.js';
import type { WorkspaceCtx } from './section.js';

/** A team's statuses and the moves allowed between them (`teams[].statuses`, `teams[].transitions`). */

export const STATUS_CATEGORIES = ['backlog', 'unstarted', 'started', 'completed', 'canceled'] as const;
export type StatusCategory = (typeof STATUS_CATEGORIES)[number];

export interface StatusSpec {
  key: string;
  name: string;
  category: StatusCategory;
}

/** statusKey → the statusKeys an issue may move to from it. */
export type TransitionsSpec = Record<string, string[]>;

/** The statuses of a team created without its own list (docs/api.md, "First start and default statuses"). */
export const DEFAULT_STATUSES: readonly StatusSpec[] = [
  { key: 'backlog', name: 'Backlog', category: 'backlog' },
  { key: 'todo', name: 'Todo', category: 'unstarted' },
  { key: 'in-progress', name: 'In Progress', category: 'started' },
  { key: 'in-review', name: 'In Review', category: 'started' },
  { key: 'done', name: 'Done', category: 'completed' },
  { key: 'canceled', name: 'Canceled', category: 'canceled' },
];

export const STATUS_KEY_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const CATEGORY_RE = new RegExp(`^(?:${STATUS_CATEGORIES.join('|')})$`);

const statusEntry: EntryFormat<StatusSpec> = {
  keys: ['key', 'name', 'category'],
  read: (status, where) => ({
    key: requiredString(status, 'key', where, { pattern: STATUS_KEY_RE, max: 50 }),
    name: requiredString(status, 'name', where, { max: 100 }),
    category: requiredString(status, 'category', where, { pattern: CATEGORY_RE }) as StatusCategory,
  }),
  unique: { identity: (status) => status.key, what: 'status key' },
};

export function parseStatuses(fields: Fields, path: string): StatusSpec[] | undefined {
  if (fields.statuses === undefined || fields.statuses === null) return undefined;
  return readEntries(fields.statuses, at(path, 'statuses'), statusEntry);
}

export function parseTransitions(fields: Fields, path: string): TransitionsSpec | undefined {
  const map = fields.transitions;
  if (map === undefined || map === null) return undefined;
  const where = at(path, 'transitions');
  if (typeof map !== 'object' || Array.isArray(map))
    fail(where, 'must be a map of status key to a list of status keys');
  const transitions: TransitionsSpec = {};
  for (const [from, targets] of Object.entries(map)) {
    const fromPath = at(where, from);
    checkString(from, fromPath, { pattern: STATUS_KEY_RE });
    transitions[from] = readList(targets ?? [], fromPath).map((to, index) =>
      checkString(to, at(fromPath, index), { pattern: STATUS_KEY_RE }),
    );
  }
  return transitions;
}

/**
 * Creates the missing statuses and updates those that differ (position = index in the
 * list); statuses the list leaves out stay. Answers every status of the team, key → id.
 */
export async function convergeStatuses(
  trx: Kysely<DB>,
  ws: WorkspaceCtx,
  teamId: string,
  statuses: readonly StatusSpec[] | undefined,
): Promise<Map<string, string>> {
  const stored = await trx.selectFrom('statuses').selectAll().where('team_id', '=', teamId).execute();
  const ids = new Map(stored.map((row) => [row.key, row.id]));
  if (!statuses) return ids;
  const byKey = new Map(stored.map((row) => [row.key, row]));
  const inserts: StatusRow[] = [];
  for (const [position, status] of statuses.entries()) {
    const row = byKey.get(status.key);
    if (!row) {
      const id = newId('st');
      inserts.push({
        id,
        workspace_id: ws.id,
        team_id: teamId,
        ...status,
        position,
        created_at: ws.now,
        updated_at: ws.now,
      });
      ids.set(status.key, id);
      continue;
    }
    const changes = changedFields(row, { name: status.name, category: status.category, position });
    if (changes)
      await trx
        .updateTable('statuses')
        .set({ ...changes, updated_at: ws.now })
        .where('id', '=', row.id)
        .execute();
  }
  if (inserts.length > 0) await trx.insertInto('statuses').values(inserts).execute();
  return ids;
}

/** Replaces the team's transition rules when they differ from the file's (the rules are one value). */
export async function convergeTransitions(
  trx: Kysely<DB>,
  ws: WorkspaceCtx,
  teamId: string,
  transitions: TransitionsSpec,
  statusIds: Map<string, string>,
  path: string,
): Promise<void> {
  const idOf = (key: string, keyPath: string) =>
    statusIds.get(key) ?? fail(keyPath, `unknown status "${key}" in this team`);
  const wanted = new Map<string, { from_status_id: string; to_status_id: string }>();
  for (const [from, targets] of Object.entries(transitions)) {
    const fromPath = at(at(path, 'transitions'), from);
    const fromId = idOf(from, fromPath);
    targets.forEach((to, index) => {
      const toId = idOf(to, at(fromPath, index));
      wanted.set(`${fromId}>${toId}`, { from_status_id: fromId, to_status_id: toId });
    });
  }
  const stored = await trx
    .selectFrom('status_transitions')
    .select(['from_status_id', 'to_status_id'])
    .where('team_id', '=', teamId)
    .execute();
  if (
    sameSet(
      stored.map((row) => `${row.from_status_id}>${row.to_status_id}`),
      wanted.keys(),
    )
  )
    return;
  await trx.deleteFrom('status_transitions').where('team_id', '=', teamId).execute();
  if (wanted.size === 0) return;
  await trx
    .insertInto('status_transitions')
    .values([...wanted.values()].map((pair) => ({ workspace_id: ws.id, team_id: teamId, ...pair })))
    .execute();
}
