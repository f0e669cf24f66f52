import { migrations } from '../migrations/index.js';

/**
 * The export file: JSON Lines, this header first, then one `ExportLine` per row, then one
 * `ExportEnd` (without it, the file was cut short).
 */
export const EXPORT_FORMAT = 'wsx-export';
export const EXPORT_VERSION = 1;

export interface ExportHeader {
  format: typeof EXPORT_FORMAT;
  version: number;
  /** The latest migration of the build that wrote the file: an import needs the same. */
  schema: string;
  workspace: { id: string; slug: string; name: string };
  exportedAt: string;
}

export interface ExportLine {
  table: string;
  row: Record<string, unknown>;
}

export interface ExportEnd {
  end: { rows: Record<string, number> };
}

/** The schema this build migrates to: the name of its last migration. */
export function latestMigration(): string {
  return Object.keys(migrations).sort().at(-1) ?? '';
}
