/**
 * Argument names a client sent that never reach a tool handler. The SDK's schema parse
 * drops a `__proto__` key from `arguments` (so it cannot replace a prototype), which
 * would make such an argument silently ignored instead of refused like every other name
 * the route does not know. This reads them from the POST body as parsed by JSON.parse,
 * where `__proto__` is an ordinary own key.
 */

const DROPPED_BY_PROTOCOL_PARSE = ['__proto__'];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

type RequestId = string | number;

/**
 * By JSON-RPC id, the dropped names of each `tools/call` in the body (one message or a
 * batch). A batch that repeats an id gets, for each of those calls, every name found
 * under the id: a repeat can only make a refusal likelier, never hide one.
 */
export function droppedArgumentNames(body: unknown): (id: RequestId) => string[] {
  const byId = new Map<RequestId, Set<string>>();
  for (const message of Array.isArray(body) ? body : [body]) {
    if (!isObject(message) || message.method !== 'tools/call' || !isObject(message.params)) continue;
    const { id } = message;
    const args = message.params.arguments;
    if ((typeof id !== 'string' && typeof id !== 'number') || !isObject(args)) continue;
    const dropped = DROPPED_BY_PROTOCOL_PARSE.filter((name) => Object.hasOwn(args, name));
    if (dropped.length === 0) continue;
    const names = byId.get(id) ?? new Set<string>();
    for (const name of dropped) names.add(name);
    byId.set(id, names);
  }
  return (id) => [...(byId.get(id) ?? [])];
}
