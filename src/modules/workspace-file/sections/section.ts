import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.js';
import type { ApplyResult } from '../apply-result.js';

/** The workspace a file is applied to; every applier of one apply shares it. */
export interface WorkspaceCtx {
  id: string;
  slug: string;
  /** The apply's instant: every row it creates or updates carries it. */
  now: string;
  /**
   * The whole validated file, each present section's parsed value under its key, for
   * sections that refer to what another section declares (read through that section's own
   * accessor, e.g. `declaredTokenNames`, so no section needs the file's overall type).
   */
  file: Readonly<Record<string, unknown>>;
}

/**
 * One top-level section of the workspace file. `parse` validates the raw value before
 * anything is written; `apply` converges the database to it inside the apply's
 * transaction: create what is missing, update what differs, never delete.
 *
 * `apply` runs for every file, with `section` undefined when the file leaves the key out,
 * so a section can also keep workspace-wide invariants (rows every workspace must have).
 */
export interface Section<T> {
  key: string;
  parse(raw: unknown, path: string): T;
  apply(trx: Kysely<DB>, ws: WorkspaceCtx, section: T | undefined, result: ApplyResult): Promise<void>;
}

/** Erases a section's value type so sections of different shapes share one ordered list. */
export const defineSection = <T>(section: Section<T>): Section<unknown> => section;

/**
 * A section whose value is a list of entries, each matched to a stored row. A file that
 * leaves the section out says nothing about those rows, so `apply` runs only for a given list.
 */
export interface ListSection<T> {
  key: string;
  parse(raw: unknown, path: string): T[];
  apply(trx: Kysely<DB>, ws: WorkspaceCtx, entries: T[], result: ApplyResult): Promise<void>;
}

export const defineListSection = <T>(section: ListSection<T>): Section<unknown> =>
  defineSection<T[]>({
    ...section,
    apply: async (trx, ws, entries, result) => {
      if (entries) await section.apply(trx, ws, entries, result);
    },
  });
