/**
 * Resource indicators (RFC 8707). wsx is one resource server with two doors onto the same
 * operations, so a token is good at both; a client may name either door, or the server's
 * base URL (what the root protected-resource metadata names), and nothing else.
 */
export const RESOURCE_PATHS = ['/api/mcp', '/api/external'] as const;

/** The value compared: no fragment, no trailing slash. */
const comparable = (value: string): string => value.split('#', 1)[0].replace(/\/+$/, '');

/**
 * The resource as stored (the issuer's spelling), or undefined when `requested` is not one of
 * this server's. `base` is the public base URL.
 */
export function ownResource(base: URL, requested: string | URL): string | undefined {
  const wanted = comparable(String(requested));
  const origin = comparable(base.href);
  for (const candidate of [origin, ...RESOURCE_PATHS.map((path) => origin + path)])
    if (candidate === wanted) return candidate;
  return undefined;
}
