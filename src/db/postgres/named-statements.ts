import { createHash } from 'node:crypto';
import type { FieldDef, QueryArrayResult } from 'pg';
import type pg from 'pg';
import { LRUCache } from 'lru-cache';
import { rowBuilder, type RowBuilder } from '../row-builder.js';
import type { StatementWatch } from '../statements.js';

/** Named statements one connection keeps; the server holds a plan for each. */
const NAMED_PER_CONNECTION = 500;

type Pg = typeof pg;

/**
 * A pg Client (given to the Pool as its `Client`, pg's own extension point) that runs every
 * query Kysely sends as a named prepared statement, so PostgreSQL parses and plans each
 * distinct text once per connection instead of on every call. Kysely always passes a
 * parameter array, so every query already uses the extended protocol; naming it only lets
 * the server keep what it prepared. Past NAMED_PER_CONNECTION texts a connection runs new
 * ones unnamed, as pg does by default. Rows are read as arrays (`rowMode: 'array'`) and made
 * objects by a builder per column list (row-builder.ts). Every statement is reported to the
 * store's watch.
 *
 * The caches of names and row builders belong to the store that makes the class: a name is a
 * hash of the text, so every connection of the pool shares them.
 */
export function namedStatementClient(driver: Pg, watch: StatementWatch): typeof pg.Client {
  const names = new LRUCache<string, string>({ max: 2 * NAMED_PER_CONNECTION });
  const builders = new LRUCache<string, { names: string[]; build: RowBuilder }>({ max: 2 * NAMED_PER_CONNECTION });

  const nameOf = (text: string): string => {
    let name = names.get(text);
    if (name === undefined) {
      name = `wsx_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
      names.set(text, name);
    }
    return name;
  };

  /** The builder for rows of these columns: the text's own, unless its columns changed (a migration). */
  const builderOf = (text: string, fields: FieldDef[]): RowBuilder => {
    const known = builders.get(text);
    if (known?.names.length === fields.length && fields.every((field, index) => field.name === known.names[index]))
      return known.build;
    const columns = fields.map((field) => field.name);
    const build = rowBuilder(columns);
    builders.set(text, { names: columns, build });
    return build;
  };

  /**
   * The answer's rows as objects. pg's own row arrays are emptied once copied: V8 learns that
   * pg's result arrays outlive a young-generation collection (a query waits its turn for a
   * connection and for the server) and allocates them in the old generation from then on. An
   * old array keeps every row pushed into it alive until the next full collection, so every
   * page's rows and strings were copied out of the young generation twice and then promoted,
   * about 2.4 MB a collection under load. Emptied, they die young (docs/performance.md).
   */
  const asObjects = async (text: string, answer: Promise<QueryArrayResult>) => {
    const result = await answer;
    if (result.rows.length === 0) return result;
    const build = builderOf(text, result.fields);
    const rows = result.rows.map(build);
    result.rows.length = 0;
    return { ...result, rows };
  };

  return class NamedStatementClient extends driver.Client {
    /** The statements this connection has prepared (the server keeps them until it closes). */
    readonly #named = new Set<string>();

    // pg's query has many overloads; only Kysely's form (text, values, no callback) is named.
    override query(...args: any[]): any {
      const given = args as unknown[];
      const [text, values, callback] = given;
      if (typeof text !== 'string' || !Array.isArray(values) || callback !== undefined)
        return (super.query as (...passed: unknown[]) => unknown)(...given);
      const finished = watch.ran(text, values);
      const name = nameOf(text);
      const keep = this.#named.has(name) || this.#named.size < NAMED_PER_CONNECTION;
      if (keep) this.#named.add(name);
      const answer = asObjects(
        text,
        super.query<unknown[]>({ text, values, rowMode: 'array', ...(keep ? { name } : {}) }),
      );
      // Timing ends whether it resolves or rejects (the caller still sees a rejection).
      if (finished) answer.then(finished, finished);
      return answer;
    }
  };
}
