import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Ctx } from './context.js';
import type { DialectName } from './database.js';
import type { DB } from './schema.js';

/** Stands in for a value while a query is built once; replaced by that value on every run. */
class Slot {
  constructor(
    readonly name: string,
    readonly index?: number,
  ) {}
}

/**
 * Stand-ins for the first `count` items of a list value (`in (…)` of a template whose shape
 * is the list's length): `slotItems(slots.ids, count)`.
 */
export function slotItems<T>(list: readonly T[], count: number): T[] {
  if (!(list instanceof Slot)) throw new Error('slotItems takes a query template slot');
  const { name } = list;
  return Array.from({ length: count }, (_, index) => new Slot(name, index) as T);
}

/** Distinct shapes one template keeps compiled (lists of ids make one per length). */
const SHAPES_PER_TEMPLATE = 256;

/** What a query's shape may be: a value the cache can key on. */
type Shape = string | number | boolean;

/**
 * A query built and compiled once per dialect and shape, then run with new values.
 *
 * Building a query with Kysely's builder and compiling it to SQL cost more on a hot read than
 * running the statement itself. A template's `build` gets only the builder, stand-ins for the
 * values (`slots.workspaceId` …) and the `shape`: everything that changes the SQL text (which
 * filters apply, how many ids a list holds) must be in the shape, and nothing else can reach
 * the build, so a cached text can never belong to another caller's query. Values given at
 * build time as constants (literals, enum members) are kept as they are.
 */
export function queryTemplate<Values extends object, S extends Shape, Row>(
  build: (db: Kysely<DB>, slots: Values, shape: S) => Compilable<Row>,
) {
  const compiled = new LRUCache<string, CompiledQuery<Row>>({ max: SHAPES_PER_TEMPLATE });
  const slots = new Proxy({} as Values, { get: (_, name) => new Slot(String(name)) });

  const compile = (db: Kysely<DB>, dialect: DialectName, shape: S): CompiledQuery<Row> => {
    const key = `${dialect}\u0000${String(shape)}`;
    let query = compiled.get(key);
    if (!query) {
      query = build(db, slots, shape).compile();
      compiled.set(key, query);
    }
    return query;
  };

  const bind = (parameters: ReadonlyArray<unknown>, values: Values): unknown[] =>
    parameters.map((parameter) => {
      if (!(parameter instanceof Slot)) return parameter;
      if (!(parameter.name in values)) throw new Error(`query template: no value for slot "${parameter.name}"`);
      const value = (values as Record<string, unknown>)[parameter.name];
      return parameter.index === undefined ? value : (value as unknown[])[parameter.index];
    });

  return {
    /** Every row the query answers, on the context's connection (its transaction, if any). */
    async rows(ctx: Pick<Ctx, 'db' | 'dialect'>, shape: S, values: Values): Promise<Row[]> {
      const query = compile(ctx.db, ctx.dialect, shape);
      const parameters = bind(query.parameters, values);
      const result = await ctx.db.executeQuery<Row>({ ...query, parameters });
      return result.rows;
    },
    async first(ctx: Pick<Ctx, 'db' | 'dialect'>, shape: S, values: Values): Promise<Row | undefined> {
      return (await this.rows(ctx, shape, values))[0];
    },
  };
}

/** A query with one shape only (no filter or list changes its text): a template run without naming a shape. */
export function singleQuery<Values extends object, Row>(build: (db: Kysely<DB>, slots: Values) => Compilable<Row>) {
  const template = queryTemplate((db, slots: Values) => build(db, slots));
  return {
    rows: (ctx: Pick<Ctx, 'db' | 'dialect'>, values: Values): Promise<Row[]> => template.rows(ctx, true, values),
    first: (ctx: Pick<Ctx, 'db' | 'dialect'>, values: Values): Promise<Row | undefined> =>
      template.first(ctx, true, values),
  };
}
