import { CompiledQuery } from 'kysely';
import type { Database } from '../src/db/database.js';
import type { ApiCall } from './client.js';
import type { QueryRecorder } from './recorder.js';

/**
 * The store's plan for the page query a list request runs: the request goes through the
 * API while the recorder captures its SQL, then that statement (same parameters) is
 * explained. SQLite answers EXPLAIN QUERY PLAN rows, PostgreSQL EXPLAIN lines.
 */
export async function explainIssueList(
  api: ApiCall,
  recorder: QueryRecorder,
  database: Database,
  url: string,
): Promise<string[]> {
  const statements = await recorder.during(() => api('GET', url));
  const page = statements.find((s) => s.sql.includes('from "issues"') && / limit /i.test(s.sql));
  if (!page) throw new Error(`${url} ran no paged select on issues`);
  const explain = database.dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
  const { rows } = await database.db.executeQuery<Record<string, unknown>>(
    CompiledQuery.raw(explain + page.sql, [...page.parameters]),
  );
  return rows.map((row) => String(row.detail ?? row['QUERY PLAN']));
}
