/** The browser session cookie: its name, how it is read, set and cleared. */
export const SESSION_COOKIE = 'wsx_session';

/** The value of the cookie `name` in a Cookie header, if any (the first one wins). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at !== -1 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

export const readSessionCookie = (header: string | undefined): string | undefined => readCookie(header, SESSION_COOKIE);

/**
 * HttpOnly (no script reads it), SameSite=Lax (not sent with another site's POST), Secure
 * when the server is reached over https. `path` limits which requests carry it.
 */
export function browserCookie(name: string, value: string, maxAgeSeconds: number, secure: boolean, path = '/'): string {
  return [
    `${name}=${value}`,
    `Path=${path}`,
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** The session cookie is sent on every path: the pages live under several. */
export const sessionCookie = (value: string, maxAgeSeconds: number, secure: boolean): string =>
  browserCookie(SESSION_COOKIE, value, maxAgeSeconds, secure);

export const clearedSessionCookie = (secure: boolean): string => sessionCookie('', 0, secure);
