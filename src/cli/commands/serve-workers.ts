import cluster, { type Worker } from 'node:cluster';
import { InvalidArgumentError } from 'commander';
import type { AppConfig } from '../../config.js';
import type { CliContext } from '../context.js';
import { LAUNCHER_GONE, type Launcher } from '../launcher.js';

/**
 * `wsx serve --workers N`: this process forks N workers that each run the ordinary `serve`
 * on the same port (node:cluster shares the listening socket) and only supervises them:
 * - SIGTERM or SIGINT (or the npm that started wsx being gone: launcher.ts) is passed on
 *   as SIGTERM, so each worker drains as a single server does (a Ctrl-C also reaches the
 *   workers from the terminal; SIGTERM then finds their handler already running instead
 *   of counting as a second, immediate stop). The primary exits once every worker has,
 *   with 0 when all drained cleanly.
 * - A worker that dies otherwise is started again, after a delay that doubles (up to 10 s)
 *   while it keeps dying within a minute of its start, so a broken start cannot spin.
 * - Only the first worker may bootstrap an empty database, so its admin token is made once.
 * Everything they share lives in the database (and Redis for rate limits), so the workers
 * need nothing from one another.
 */

export const MAX_WORKERS = 64;
const FIRST_RESTART_MS = 500;
const MAX_RESTART_MS = 10_000;
const STABLE_MS = 60_000;

/** Commander parser for `--workers`: a whole number in 1..MAX_WORKERS. */
export function parseWorkerCount(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || count > MAX_WORKERS)
    throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_WORKERS}`);
  return count;
}

interface Slot {
  index: number;
  startedMs: number;
  restartMs: number;
}

export function superviseWorkers(
  ctx: CliContext,
  count: number,
  { bootstrap, metricsPort }: Pick<AppConfig, 'bootstrap' | 'metricsPort'>,
  launcher?: Launcher,
): void {
  const slots = new Map<Worker, Slot>();
  let stopping = false;
  let failed = false;

  const fork = (index: number, restartMs: number) => {
    // Environment values are inherited; WSX_BOOTSTRAP=off keeps the later workers from racing the first.
    const env: Record<string, string> = index === 1 || !bootstrap ? {} : { WSX_BOOTSTRAP: 'off' };
    // Metrics are per process: worker k serves them on WSX_METRICS_PORT + k - 1, so a scrape
    // names one worker rather than whichever the cluster's shared port would pick.
    if (metricsPort !== undefined && metricsPort > 0) env.WSX_METRICS_PORT = String(metricsPort + index - 1);
    slots.set(cluster.fork(env), { index, startedMs: Date.now(), restartMs });
  };

  cluster.on('exit', (worker, code, signal) => {
    const slot = slots.get(worker);
    slots.delete(worker);
    if (!slot) return;
    if (stopping) {
      if (code !== 0) failed = true;
      if (slots.size === 0) process.exit(failed ? 1 : 0);
      return;
    }
    const lived = Date.now() - slot.startedMs;
    const delayMs = lived >= STABLE_MS ? FIRST_RESTART_MS : slot.restartMs;
    ctx.err(
      `worker ${slot.index} (pid ${worker.process.pid}) exited (${signal ?? `code ${code}`}); ` +
        `starting it again in ${delayMs / 1000} s`,
    );
    setTimeout(() => {
      if (!stopping) fork(slot.index, Math.min(delayMs * 2, MAX_RESTART_MS));
    }, delayMs);
  });

  const stop = (cause: string) => {
    if (stopping) return;
    stopping = true;
    ctx.out(`${cause}: stopping ${slots.size} workers once their in-flight requests finish.`);
    if (slots.size === 0) process.exit(0);
    for (const worker of slots.keys()) worker.process.kill('SIGTERM');
  };
  process.once('SIGTERM', (signal) => stop(`${signal} received`));
  process.once('SIGINT', (signal) => stop(`${signal} received`));
  launcher?.stopWith(() => stop(LAUNCHER_GONE));

  ctx.out(`wsx primary (pid ${process.pid}) starts ${count} workers.`);
  for (let index = 1; index <= count; index++) fork(index, FIRST_RESTART_MS);
}
