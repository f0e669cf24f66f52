import type { FastifyServerOptions } from 'fastify';
import type { DestinationStream } from 'pino';

/**
 * The server's logger: JSON lines for collectors, or pino-pretty's readable lines when a
 * person watches the terminal. `stream` (tests) receives the JSON lines instead of stdout.
 */
export function loggerOptions(
  enabled: boolean,
  level: string,
  stream: DestinationStream | undefined,
): FastifyServerOptions['logger'] {
  if (stream) return { level, stream };
  if (!enabled) return false;
  // One request, one terminal line too: pino-pretty would otherwise print a line per field.
  if (process.stdout.isTTY)
    return {
      level,
      transport: { target: 'pino-pretty', options: { translateTime: 'SYS:standard', singleLine: true } },
    };
  return { level };
}
