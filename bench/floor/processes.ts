import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A server started for one measurement: its base URL and how to stop it. */
export interface RunningServer {
  url: string;
  pid: number;
  /** Resident memory now, in MB (from /proc). */
  rssMb(): number;
  stop(): Promise<void>;
}

/** Runs a command to its end; rejects with its output when it fails. */
export function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`)),
    );
  });
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a server process and waits until `probe` answers. The process runs in its own
 * process group, so stopping it also ends anything it started.
 */
export async function startServer(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; port: number; probe: string },
): Promise<RunningServer & { startedInMs: number }> {
  const started = performance.now();
  const child: ChildProcess = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const url = `http://127.0.0.1:${options.port}`;
  for (let attempt = 0; !(await answers(`${url}${options.probe}`)); attempt++) {
    if (child.exitCode !== null || attempt > 600) throw new Error(`${command} ${args.join(' ')} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const startedInMs = performance.now() - started;
  const pid = child.pid as number;
  return {
    url,
    pid,
    startedInMs,
    rssMb: () => {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return match ? Math.round(Number(match[1]) / 1024) : NaN;
    },
    stop: async () => {
      process.kill(-pid, 'SIGTERM');
      await exited;
    },
  };
}
