import type { Kysely } from 'kysely';
import { newId } from '../../../core/ids.js';
import type { DB, IssueContainerRow } from '../../../db/schema.js';
import { fail } from '../errors.js';
import { at, optionalDate, readEntries, requiredString, type EntryFormat, type Fields } from '../fields.js';
import { changedFields } from './converge.js';
import type { WorkspaceCtx } from './section.js';

/** A project's issue containers (`projects[].containers`), matched by name within the project. */

export interface ContainerSpec {
  name: string;
  startDate?: string;
  dueDate?: string;
}

const containerEntry: EntryFormat<ContainerSpec> = {
  keys: ['name', 'startDate', 'dueDate'],
  read: (container, where) => ({
    name: requiredString(container, 'name', where, { max: 200 }),
    startDate: optionalDate(container, 'startDate', where),
    dueDate: optionalDate(container, 'dueDate', where),
  }),
  unique: { identity: (container) => container.name, what: 'container name' },
};

export function parseContainers(fields: Fields, path: string): ContainerSpec[] | undefined {
  if (fields.containers === undefined || fields.containers === null) return undefined;
  return readEntries(fields.containers, at(path, 'containers'), containerEntry);
}

/** Every container of the workspace, keyed `projectId/name`, loaded once per apply. */
export async function loadContainers(trx: Kysely<DB>, ws: WorkspaceCtx): Promise<Map<string, IssueContainerRow>> {
  const rows = await trx.selectFrom('issue_containers').selectAll().where('workspace_id', '=', ws.id).execute();
  return new Map(rows.map((row) => [`${row.project_id}/${row.name}`, row]));
}

/** Creates missing containers and updates dates that differ; answers name → id. */
export async function convergeContainers(
  trx: Kysely<DB>,
  ws: WorkspaceCtx,
  projectId: string,
  containers: ContainerSpec[],
  stored: Map<string, IssueContainerRow>,
  path: string,
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const inserts: IssueContainerRow[] = [];
  for (const [index, container] of containers.entries()) {
    const row = stored.get(`${projectId}/${container.name}`);
    // The stored date stands for one the file leaves out, so the pair is checked as it will be.
    const startDate = container.startDate ?? row?.start_date ?? null;
    const dueDate = container.dueDate ?? row?.due_date ?? null;
    if (startDate && dueDate && dueDate < startDate)
      fail(at(at(path, 'containers'), index), 'dueDate must not be before startDate');
    if (!row) {
      const id = newId('ic');
      inserts.push({
        id,
        workspace_id: ws.id,
        project_id: projectId,
        name: container.name,
        description: null,
        start_date: startDate,
        due_date: dueDate,
        archived: 0,
        created_at: ws.now,
        updated_at: ws.now,
      });
      ids.set(container.name, id);
      continue;
    }
    const changes = changedFields(row, { start_date: container.startDate, due_date: container.dueDate });
    if (changes)
      await trx
        .updateTable('issue_containers')
        .set({ ...changes, updated_at: ws.now })
        .where('id', '=', row.id)
        .execute();
    ids.set(container.name, row.id);
  }
  if (inserts.length > 0) await trx.insertInto('issue_containers').values(inserts).execute();
  return ids;
}
