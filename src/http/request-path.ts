import type { FastifyRequest } from 'fastify';

/**
 * The path an access decision is taken on. The raw URL is not it: the router decodes
 * percent-escapes (`/api/%6dcp` reaches the `/api/mcp` route) and ignores a trailing slash,
 * so a check on the raw text can be walked around.
 *
 * - A request the router matched: the matched route's template (`/api/mcp`,
 *   `/api/external/projects/:projectId`), exactly what will run.
 * - Any other request: its path decoded until stable, with `.` and `..` segments resolved,
 *   repeated and trailing slashes dropped, in lower case. No route runs for it, so this only
 *   decides whether the credential is asked for before the 404; being generous here
 *   (`//api/mcp`, `/api%2Fmcp`, `/API/MCP` all count as the API) costs nothing.
 */
export function requestPath(request: FastifyRequest): string {
  const route = request.is404 ? undefined : request.routeOptions.url;
  return route ?? normalisePath(request.url);
}

const MAX_DECODE_ROUNDS = 4;

function decodeFully(text: string): string {
  let current = text;
  for (let round = 0; round < MAX_DECODE_ROUNDS; round++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return current;
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}

export function normalisePath(url: string): string {
  const raw = url.split(/[?#]/, 1)[0];
  const segments: string[] = [];
  for (const segment of decodeFully(raw).toLowerCase().split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}
