import type { McpTool } from './tools.js';
import { ALL_TOOLSETS, DEFAULT_TOOLSET, inToolset, TOOLSET_NAMES } from './toolsets.js';

/**
 * Error suggestions are written once, for every door, and many name an HTTP route ("Call
 * GET /api/external/projects for the projects this credential can access."). A caller on
 * MCP has tools, not routes: there each route named becomes the tool that serves it ("Call
 * the list_projects tool for …"), with the toolset that serves it when this request's
 * selection does not list it. A route no tool serves is left as written.
 */

/** The tool serving a method and a path template, or undefined. */
export type RouteIndex = (method: string, path: string) => McpTool | undefined;

/** A route as suggestions write it: `GET /api/external/…` or `GET …/issues/{issueId}/subtasks`, maybe with a query. */
const ROUTE_MENTION = /\b(GET|POST|PUT|PATCH|DELETE) ((?:\/api\/external|…)(?:\/[^\s?;,()]*)?)(\?[^\s;,()]*)?/g;

const segmentsOf = (path: string): string[] => path.split('/').filter(Boolean);
const isParameter = (segment: string): boolean => /^\{\w+\}$/.test(segment);

/**
 * How well a route template serves the path a suggestion names, or -1 when it does not:
 * each literal segment must match (a parameter of the template also takes a literal, but
 * scores less, so `/meetings/settings` finds its own route before `/meetings/{meetingId}`).
 * A path written from `…` matches the end of a template.
 */
function score(template: string[], named: string[], suffix: boolean): number {
  if (suffix ? named.length > template.length : named.length !== template.length) return -1;
  const tail = template.slice(template.length - named.length);
  let points = 0;
  for (let i = 0; i < named.length; i++) {
    if (isParameter(named[i])) {
      if (!isParameter(tail[i])) return -1;
      points += 2;
    } else if (tail[i] === named[i]) points += 2;
    else if (isParameter(tail[i])) points += 1;
    else return -1;
  }
  return points;
}

export function routeIndex(tools: McpTool[]): RouteIndex {
  const routes = tools.map((tool) => ({ tool, method: tool.op.method, segments: segmentsOf(tool.op.path) }));
  return (method, path) => {
    const suffix = path.startsWith('…');
    const named = segmentsOf(suffix ? path.slice(1) : path);
    let best: { tool: McpTool; points: number } | undefined;
    for (const route of routes) {
      if (route.method !== method) continue;
      const points = score(route.segments, named, suffix);
      if (points >= 0 && (!best || points > best.points)) best = { tool: route.tool, points };
    }
    return best?.tool;
  };
}

/** The toolset to ask for (`?toolsets=…`) to be served a tool outside this selection. */
const toolsetOf = (tool: McpTool): string =>
  TOOLSET_NAMES.find((name) => name !== DEFAULT_TOOLSET && name !== ALL_TOOLSETS && inToolset(name, tool.op)) ??
  ALL_TOOLSETS;

/**
 * `suggestion` with each route it names replaced by its tool: `the list_statuses tool`
 * (`with teamKey` for a query it shows), and `(served with /api/mcp?toolsets=admin)` when
 * `listed`, the tools this request can call, does not hold it.
 */
export function toolFormOf(suggestion: string, find: RouteIndex, listed: ReadonlyMap<string, McpTool>): string {
  return suggestion.replace(ROUTE_MENTION, (mention, method: string, written: string, query: string | undefined) => {
    // A route that ends its sentence keeps the full stop outside.
    const stop = !query && written.endsWith('.') ? '.' : '';
    const path = stop ? written.slice(0, -1) : written;
    const tool = find(method, path);
    if (!tool) return mention;
    const name = tool.definition.name;
    const parameters = query ? [...new URLSearchParams(query.slice(1)).keys()].filter((key) => /^\w+$/.test(key)) : [];
    const using = parameters.length ? ` with ${parameters.join(' and ')}` : '';
    const served = listed.has(name) ? '' : ` (served with /api/mcp?toolsets=${toolsetOf(tool)})`;
    return `the ${name} tool${using}${served}${stop}`;
  });
}
