import { run } from './processes.js';

export interface WrkResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Non-2xx/3xx answers and socket errors. */
  failures: number;
}

const toMs = (value: string, unit: string) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? NaN);

/** Parses wrk's `--latency` report. */
export function parseWrk(output: string): WrkResult {
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(output);
  const percentile = (p: string) => {
    const match = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)$`, 'm').exec(output);
    return match ? toMs(match[1], match[2]) : NaN;
  };
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(output);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  if (!rate) throw new Error(`unreadable wrk output:\n${output}`);
  return {
    requestsPerSecond: Number(rate[1]),
    p50Ms: percentile('50'),
    p99Ms: percentile('99'),
    failures: Number(non2xx?.[1] ?? 0) + (errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
  };
}

/** One wrk run (one thread, as the floor's README prescribes) against `url` with a Lua script. */
export async function wrk(options: {
  url: string;
  script: string;
  seconds: number;
  connections: number;
  cwd: string;
  env: NodeJS.ProcessEnv;
}): Promise<WrkResult> {
  const output = await run(
    'wrk',
    ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--latency', '-s', options.script, options.url],
    { cwd: options.cwd, env: options.env },
  );
  return parseWrk(output);
}
