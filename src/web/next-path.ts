/** The longest `next` accepted; a consent URL is far shorter. */
const MAX_NEXT = 2048;
const PROBE_ORIGIN = 'http://next.invalid';

/**
 * A path a browser reads as another host: `//host` (scheme-relative), and `/\host`, since
 * browsers read "\" as "/".
 */
const OTHER_HOST_RE = /^\/[/\\]/;

/**
 * Where to go after signing in: only a path on this server, so a sign-in link cannot send
 * the browser elsewhere (an open redirect). `//host`, `/\host`, `https://…`, control
 * characters and anything that resolves to another origin are refused. Answers the path
 * as the URL parser normalised it, or undefined.
 *
 * The normalised path is what goes into `Location`, so it is what is judged: dot segments
 * and their encodings (`/.//host`, `/a/..//host`, `/%2e%2e//host`) resolve to `//host`,
 * which is refused like the `//host` typed as such.
 */
export function sameOriginPath(next: unknown): string | undefined {
  if (typeof next !== 'string' || next.length === 0 || next.length > MAX_NEXT) return undefined;
  // Browsers read "\" as "/" and drop tabs and newlines, so "/\evil" and "/\t/evil" are other hosts.
  if (!next.startsWith('/') || OTHER_HOST_RE.test(next) || /[\\\p{Cc}]/u.test(next)) return undefined;
  let url: URL;
  try {
    url = new URL(next, PROBE_ORIGIN);
  } catch {
    return undefined;
  }
  if (url.origin !== PROBE_ORIGIN) return undefined;
  const path = `${url.pathname}${url.search}${url.hash}`;
  return path.startsWith('/') && !OTHER_HOST_RE.test(path) ? path : undefined;
}
