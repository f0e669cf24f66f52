import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'fastify/types/logger.js';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
/** What a log method takes: an object or a message, then the message's arguments. */
type Line = [obj: unknown, msg?: string, ...args: unknown[]];

/** pino's logger, which can say whether a level is written. */
interface LevelAwareLogger extends FastifyBaseLogger {
  isLevelEnabled(level: string): boolean;
}

const knowsLevels = (logger: FastifyBaseLogger): logger is LevelAwareLogger =>
  typeof (logger as Partial<LevelAwareLogger>).isLevelEnabled === 'function';

/**
 * A request's logger whose pino child, bound to the request id, is made only when the
 * request writes a line. Fastify makes the child for every request; at `LOG_LEVEL=warn` or
 * above (the bench's) a request that succeeds writes none, and making the child anyway
 * showed up in CPU profiles of the cheapest reads, by key
 * (docs/decisions/0064-lean-request-path.md). At the default `info` each request writes its
 * line, so the child is made as before.
 */
class RequestLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: LevelAwareLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.#made().level = level;
  }

  fatal(...line: Line): void {
    this.#write('fatal', line);
  }

  error(...line: Line): void {
    this.#write('error', line);
  }

  warn(...line: Line): void {
    this.#write('warn', line);
  }

  info(...line: Line): void {
    this.#write('info', line);
  }

  debug(...line: Line): void {
    this.#write('debug', line);
  }

  trace(...line: Line): void {
    this.#write('trace', line);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }

  #made(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }

  #write(level: Level, line: Line): void {
    if (this.#child || this.parent.isLevelEnabled(level)) this.#made()[level](...line);
  }
}

/** Fastify's `childLoggerFactory`: each request's logger (RequestLogger). */
export function requestLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  // A level of its own (or a logger that cannot say which levels it writes): made at once.
  if (options.level !== undefined || !knowsLevels(parent)) return parent.child(bindings, options);
  return new RequestLogger(parent, bindings, options);
}
