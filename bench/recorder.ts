import type {
  CompiledQuery,
  Kysely,
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryId,
  RootOperationNode,
} from 'kysely';
import type { Database } from '../src/db/database.js';

/**
 * Records every statement a database handle executes, as compiled SQL. A Kysely plugin
 * sees each query twice: its node before compilation, its result after execution; only
 * executed statements are kept, so a compiled-but-unsent query is not counted. A write
 * transaction's BEGIN and COMMIT are sent by the driver, not through the plugin, and are
 * not among them.
 */
export class QueryRecorder implements KyselyPlugin {
  private readonly executed: CompiledQuery[] = [];
  private recording = false;
  private readonly pending = new WeakMap<QueryId, RootOperationNode>();
  private db?: Kysely<any>;

  /** The same store seen through the recorder; hand it to buildApp to record what requests run. */
  wrap(database: Database): Database {
    const db = database.db.withPlugin(this);
    this.db = db;
    return { ...database, db };
  }

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    if (this.recording) this.pending.set(queryId, node);
    return node;
  }

  async transformResult({ result, queryId }: PluginTransformResultArgs) {
    const node = this.pending.get(queryId);
    if (node && this.db) this.executed.push(this.db.getExecutor().compileQuery(node, queryId));
    return result;
  }

  /** Runs `action` and answers the statements executed meanwhile (nothing is kept outside such a call). */
  async during(action: () => Promise<unknown>): Promise<CompiledQuery[]> {
    this.executed.length = 0;
    this.recording = true;
    try {
      await action();
      return [...this.executed];
    } finally {
      this.recording = false;
    }
  }
}
