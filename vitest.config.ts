import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // packages/*/test: the workspace packages' tests run against the real app, beside the server's.
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    pool: 'forks',
    // At least two files at a time: Vitest's default (one less than the cores) is a single
    // worker on a 2-core machine, and the suites spend much of their time waiting on
    // PostgreSQL, timers and child processes. On 2 cores: SQLite 402 → 214–248 s,
    // PostgreSQL about 600 → 296–423 s (docs/decisions/0055-code-health.md).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
