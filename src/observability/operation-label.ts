import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The catalog operation a route serves (src/http/operations.ts), for logs and metrics. */
    operationId?: string;
  }
}

/** The label of a request that matched no route: its raw URL would make a series per URL. */
export const UNMATCHED = 'unmatched';

/**
 * What a request is counted and logged as: its catalog operation id, else the route's
 * template (`/healthz`, `/api/mcp`); never the URL it was sent to, so the labels stay few.
 */
export function operationOf(request: FastifyRequest): string {
  const { config, url } = request.routeOptions;
  return config?.operationId ?? (request.is404 || !url ? UNMATCHED : url);
}
