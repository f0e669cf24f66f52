import type { Connection, FieldDef, Query as PgQuery, QueryArrayResult } from 'pg';
import { BoundedCache } from './statements.js';

/** The columns a named statement answers, and pg's parser of each, as the first run described them. */
interface ResultShape {
  fields: FieldDef[];
  parsers: unknown[];
}

/** What this module reaches inside pg's Query and Result (pg 8's own names; not in its types). */
interface QueryInternals {
  name?: string;
  callback?: (error: Error | null, result: QueryArrayResult) => void;
  types?: unknown;
  _rowMode?: string;
  _result: { fields: FieldDef[]; _parsers?: unknown[] };
  _results: unknown;
  _accumulateRows: boolean;
  hasBeenParsed(connection: Connection): boolean;
  prepare(connection: Connection): void;
  handleRowDescription(message: { fields: FieldDef[] }): void;
  listeners(event: string): unknown[];
}

/** Shapes by statement name; a name is a hash of the text, so every connection shares them. */
const shapes = new BoundedCache<ResultShape>(1_000);

type QueryCallback = (error: Error | null, result: QueryArrayResult) => void;
type QueryClass = new (name: string, text: string, values: unknown[], callback: QueryCallback) => PgQuery;
type PositionalQuery = new (text: string, values: unknown[], callback: QueryCallback) => QueryInternals;

/**
 * pg's Query, minus the Describe of a named statement's result once its shape is known.
 *
 * pg asks the server to describe the result of every run of a prepared statement; the server
 * answers with the name, type and format of every column, and pg reads them and looks up a
 * parser for each. For an issue's 42 columns that was a sixth of a PostgreSQL read by key's
 * CPU (`perf`: 26 of 178 µs). A named statement's columns are fixed by its text, so the
 * first run on any connection describes them (and this remembers them) and later runs on a
 * connection that has the statement prepared skip the Describe and take the remembered
 * shape. A schema change under a running server (which the migrations never make) makes
 * PostgreSQL refuse the prepared statement outright, as it did before.
 */
export function knownShapeQuery(Query: typeof PgQuery): QueryClass {
  class KnownShapeQuery extends (Query as unknown as PositionalQuery) {
    /**
     * pg copies a config object property by property (getOwnPropertyDescriptors) on every
     * query, 3 µs each (`perf`, a PostgreSQL create); its positional form takes the text as
     * is. The name and the array rows (Kysely's rows are made objects in pg-statements.ts)
     * are then set as pg's own constructor sets them from a config.
     */
    constructor(name: string, text: string, values: unknown[], callback: QueryCallback) {
      super(text, values, callback);
      this.name = name;
      this._rowMode = 'array';
      const Result = this._result.constructor as new (rowMode: string, types: unknown) => QueryInternals['_result'];
      this._result = this._results = new Result('array', this.types);
    }

    override prepare(connection: Connection): void {
      const shape = this.name === undefined ? undefined : shapes.get(this.name);
      if (!shape || !this.hasBeenParsed(connection)) return super.prepare(connection);
      // pg's own prepare (bind, execute, sync; the statement is parsed already) without
      // the Describe it sends in between: an own property masks the method for this call.
      const masked = connection as unknown as { describe?: unknown };
      masked.describe = () => undefined;
      try {
        super.prepare(connection);
      } finally {
        delete masked.describe;
      }
      // What the RowDescription would have set.
      this._result.fields = shape.fields;
      this._result._parsers = shape.parsers;
      this._accumulateRows = this.callback !== undefined || this.listeners('row').length === 0;
    }

    override handleRowDescription(message: { fields: FieldDef[] }): void {
      super.handleRowDescription(message);
      if (this.name !== undefined && this._result._parsers)
        shapes.set(this.name, { fields: this._result.fields, parsers: this._result._parsers });
    }
  }
  return KnownShapeQuery as unknown as QueryClass;
}
