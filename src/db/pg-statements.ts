import { createHash } from 'node:crypto';
import type { ClientBase, QueryConfig } from 'pg';
import { BoundedCache, type StatementWatch } from './statements.js';

/** Named statements one connection keeps; the server holds a plan for each. */
const NAMED_PER_CONNECTION = 500;

/** Statement names by text, shared by every connection: hashing the text on every call was ~3 % of a by-key read. */
const names = new BoundedCache<string>(2 * NAMED_PER_CONNECTION);

function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `wsx_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Runs every query of this client as a named prepared statement, so PostgreSQL parses and
 * plans each distinct text once per connection instead of on every call. Kysely always
 * passes a parameter array, so every query already uses the extended protocol (one command
 * per text); naming it only lets the server keep what it prepared. Past the cap, texts run
 * unnamed as before.
 */
export function nameStatements(client: ClientBase, watch: StatementWatch): void {
  const named = new Set<string>();
  const query = client.query.bind(client) as (config: QueryConfig | string, values?: unknown[]) => unknown;
  const replacement = (config: QueryConfig | string, values?: unknown[]): unknown => {
    if (typeof config !== 'string' || !Array.isArray(values)) return query(config, values);
    const finished = watch.ran(config, values);
    const name = nameOf(config);
    let answer: unknown;
    if (named.has(name) || named.size < NAMED_PER_CONNECTION) {
      named.add(name);
      answer = query({ name, text: config, values });
    } else answer = query(config, values);
    // Kysely uses the promise form: timing ends whether it resolves or rejects (the caller still sees a rejection).
    if (finished) (answer as Promise<unknown>).then(finished, finished);
    return answer;
  };
  client.query = replacement as ClientBase['query'];
}
