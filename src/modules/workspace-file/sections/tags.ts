import { newId } from '../../../core/ids.js';
import type { TagRow } from '../../../db/schema.js';
import { optionalStringList, readEntries, requiredString, type EntryFormat } from '../fields.js';
import { changedFields } from './converge.js';
import { defineListSection } from './section.js';

export const TAG_SCOPES = ['issues', 'agenda', 'discussion'] as const;
export type TagScope = (typeof TAG_SCOPES)[number];

export interface TagSpec {
  name: string;
  /** Where the tag is offered; all scopes when the file leaves it out on a new tag. */
  scopes?: TagScope[];
}

const SCOPE_RE = new RegExp(`^(?:${TAG_SCOPES.join('|')})$`);

const tagEntry: EntryFormat<TagSpec> = {
  keys: ['name', 'scopes'],
  read: (fields, where) => ({
    name: requiredString(fields, 'name', where, { max: 50 }),
    scopes: optionalStringList(fields, 'scopes', where, { pattern: SCOPE_RE }) as TagScope[] | undefined,
  }),
  unique: { identity: (tag) => tag.name.toLowerCase(), what: 'tag' },
};

/** Stored as a JSON list in one fixed order, so equal scope sets compare equal as text. */
const storedScopes = (scopes: readonly TagScope[]): string =>
  JSON.stringify(TAG_SCOPES.filter((scope) => scopes.includes(scope)));

/** Managed tags, matched by name case-insensitively (a new spelling renames the tag). */
export const tagsSection = defineListSection<TagSpec>({
  key: 'tags',
  parse: (raw, path) => readEntries(raw, path, tagEntry),
  async apply(trx, ws, tags) {
    const stored = await trx.selectFrom('tags').selectAll().where('workspace_id', '=', ws.id).execute();
    const byName = new Map(stored.map((row) => [row.name_lower, row]));
    const inserts: TagRow[] = [];
    for (const tag of tags) {
      const nameLower = tag.name.toLowerCase();
      const row = byName.get(nameLower);
      if (!row) {
        inserts.push({
          id: newId('tag'),
          workspace_id: ws.id,
          name: tag.name,
          name_lower: nameLower,
          scopes: storedScopes(tag.scopes ?? TAG_SCOPES),
          created_at: ws.now,
          updated_at: ws.now,
        });
        continue;
      }
      const changes = changedFields(row, { name: tag.name, scopes: tag.scopes && storedScopes(tag.scopes) });
      if (changes)
        await trx
          .updateTable('tags')
          .set({ ...changes, updated_at: ws.now })
          .where('id', '=', row.id)
          .execute();
    }
    if (inserts.length > 0) await trx.insertInto('tags').values(inserts).execute();
  },
});
