import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL pages after which the serving connection checkpoints by itself, at the end of a commit.
 * The worker has copied nearly all of them by then, so that checkpoint has little to copy;
 * what it is for is that the connection's next write starts the WAL over from its beginning.
 * A worker's checkpoint cannot do that while commits keep arriving between its passes, and
 * the WAL would only grow. It still syncs the file and holds up the event loop, so it is
 * kept rare: at 16,000 pages (a WAL of at most 64 MB) creates ran clearly faster than at a
 * quarter of that, with a lower p99, and a higher threshold gained nothing more
 * (docs/decisions/0062-sqlite-checkpoints-and-statistics.md).
 */
export const SERVING_AUTOCHECKPOINT_PAGES = 16_000;

/** How often the worker copies new WAL pages into the database file. */
const INTERVAL_MS = 100;

/**
 * The worker's code. It is plain CommonJS handed to the Worker as text (not a module file),
 * so it runs the same from the build and from the TypeScript sources under test.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // a checkpoint that fails (a full disk) is tried again at the next tick
  }
}, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops the worker once its current checkpoint, if any, has finished. */
  stop(): Promise<void>;
}

/**
 * Copies the WAL of an SQLite file into the database file from a worker thread (passive
 * checkpoints: they never wait for or block a writer). A checkpoint syncs the file to disk;
 * left to the connection that serves requests, SQLite runs one inside the commit that crosses
 * its threshold (every 1,000 pages), and that wait, a large part of what a create's commit
 * cost on average, held up the event loop and every request behind it. The serving connection
 * keeps a higher threshold (SERVING_AUTOCHECKPOINT_PAGES) that bounds the WAL, and still
 * checkpoints everything if the worker is gone.
 */
export function startCheckpointer(file: string): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      file,
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      intervalMs: INTERVAL_MS,
    },
  });
  // An error in the worker must not end the server: the serving connection's threshold still bounds the WAL.
  worker.on('error', () => undefined);
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    stop: async () => {
      // Referenced again, so a process with nothing else to do waits for the exit instead of ending.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
