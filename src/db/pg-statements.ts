import { createHash } from 'node:crypto';
import type { ClientBase, FieldDef, Query as PgQuery, QueryArrayConfig, QueryArrayResult, QueryConfig } from 'pg';
import { knownShapeQuery } from './pg-known-shapes.js';
import { rowBuilder, type RowBuilder } from './row-builder.js';
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
 * Statements handed to any connection so far, or promised to go out in order before their
 * transaction ends (pg-write-batches.ts): UnansweredWrites tells by it whether one needs no wait.
 */
let sent = 0;

export const statementsSent = (): number => sent;

/** A statement will go out in order before its transaction ends, though not at once. */
export function statementHandedOver(): void {
  sent += 1;
}

/** Row builders by statement text, with the column names each was made for. */
const builders = new BoundedCache<{ names: string[]; build: RowBuilder }>(2 * NAMED_PER_CONNECTION);

/** The builder for rows of these columns: the text's own, unless its columns changed (a migration). */
function builderOf(text: string, fields: FieldDef[]): RowBuilder {
  const known = builders.get(text);
  if (
    known &&
    known.names.length === fields.length &&
    fields.every((field, index) => field.name === known.names[index])
  )
    return known.build;
  const names = fields.map((field) => field.name);
  const build = rowBuilder(names);
  builders.set(text, { names, build });
  return build;
}

/** Rows read as arrays, answered as objects (see row-builder.ts); the result is otherwise as pg gives it. */
async function withRowObjects(text: string, answer: Promise<QueryArrayResult>) {
  const result = await answer;
  if (result.rows.length === 0) return result;
  const build = builderOf(text, result.fields);
  return { ...result, rows: result.rows.map(build) };
}

/**
 * Runs every query of this client as a named prepared statement, so PostgreSQL parses and
 * plans each distinct text once per connection instead of on every call. Kysely always
 * passes a parameter array, so every query already uses the extended protocol (one command
 * per text); naming it only lets the server keep what it prepared. Past the cap, texts run
 * unnamed as before. Rows come as arrays and are made objects here (see row-builder.ts).
 * Named statements run as pg's `Query` that skips describing a result already known
 * (pg-known-shapes.ts).
 */
export function nameStatements(client: ClientBase, watch: StatementWatch, Query: typeof PgQuery): void {
  const KnownShapeQuery = knownShapeQuery(Query);
  const named = new Set<string>();
  const query = client.query.bind(client) as (
    config: QueryConfig | QueryArrayConfig | string | PgQuery,
    values?: unknown[],
    callback?: unknown,
  ) => unknown;
  const replacement = (config: QueryConfig | string, values?: unknown[], callback?: unknown): unknown => {
    sent += 1;
    // Only Kysely's promise form is replaced; a callback (pool.query passes one) must be
    // called, so that form runs as pg runs it.
    if (typeof config !== 'string' || !Array.isArray(values) || callback !== undefined)
      return query(config, values, callback);
    const finished = watch.ran(config, values);
    const name = nameOf(config);
    const keep = named.has(name) || named.size < NAMED_PER_CONNECTION;
    if (keep) named.add(name);
    // Kysely uses the promise form.
    const answer = withRowObjects(
      config,
      keep
        ? new Promise<QueryArrayResult>((resolve, reject) =>
            query(
              new KnownShapeQuery(name, config, values, (error, result) => (error ? reject(error) : resolve(result))),
            ),
          )
        : (query({ text: config, values, rowMode: 'array' }) as Promise<QueryArrayResult>),
    );
    // Timing ends whether it resolves or rejects (the caller still sees a rejection).
    if (finished) answer.then(finished, finished);
    return answer;
  };
  client.query = replacement as ClientBase['query'];
}
