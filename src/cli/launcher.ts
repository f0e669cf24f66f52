/**
 * `npx wsx serve` and `npm run wsx -- serve` run wsx through a shell: npm spawns
 * `sh -c 'wsx' serve`, and a shell that forks rather than execs its last command (dash, the
 * `sh` of Debian and Ubuntu, does) leaves node as its child. npm passes a SIGTERM or SIGINT
 * on to its own child only, the shell, which dies of it without passing it on; node was
 * left running, reparented to PID 1. (`npm start` has no such shell in between: its script
 * is `exec node …`.)
 *
 * So a wsx that npm started watches the process that started it. When that one is gone,
 * npm is stopping (or was killed), and wsx stops as on a SIGTERM of its own.
 */

/** The parent when this process started; later, a different process.ppid means it is gone. */
const startedBy = process.ppid;

const POLL_MS = 200;

/** Why a server npm started stops when npm is gone: the start of the line it prints. */
export const LAUNCHER_GONE = 'npm (npx), which started wsx, has stopped';

/**
 * Whether a process exists (one of another user's answers EPERM, and exists). POSIX
 * systems give an orphan a new parent, which process.ppid shows; Windows does not, so a
 * parent's end shows there only as its id no longer answering.
 */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface Launcher {
  /** What to run when the launcher is gone: the server's graceful stop, once it has one. */
  stopWith(stop: () => void): void;
}

/**
 * Watches the launcher of a process npm started (npm sets `npm_lifecycle_event` for every
 * script and `npx`); undefined for any other (a shell, systemd, a container's init), whose
 * signals reach wsx directly and which may rightly leave it running (`nohup`). Until
 * `stopWith` names a graceful stop, a lost launcher ends the process as a SIGTERM would.
 * The timer never keeps the process alive.
 */
export function followLauncher(env: NodeJS.ProcessEnv, parent: number = startedBy): Launcher | undefined {
  if (!env.npm_lifecycle_event || parent <= 1) return undefined;
  let stop = (): void => {
    process.kill(process.pid, 'SIGTERM');
  };
  const timer = setInterval(() => {
    if (process.ppid === parent && exists(parent)) return;
    clearInterval(timer);
    stop();
  }, POLL_MS);
  timer.unref();
  return {
    stopWith(next) {
      stop = next;
    },
  };
}
