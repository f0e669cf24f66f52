/**
 * What goes back to a client's redirect URI, from the authorization endpoint (an error) or
 * from the consent page (a code, or `error=access_denied`). Every such answer names the
 * issuer (`iss`, RFC 9207), so a client that talks to several authorization servers can
 * tell which one answered and is not fooled by a mix-up.
 */

/** The longest `state` kept for the redirect back; clients use a random value or a short signed blob. */
export const MAX_STATE_LENGTH = 2048;

/**
 * The redirect URI with `params`, the client's `state` (when it is within the bound; a longer
 * one is refused and never echoed) and `iss`. `issuer` is the issuer identifier exactly as the
 * authorization-server metadata names it.
 */
export function authorizationResponseUrl(
  redirectUri: string,
  issuer: string,
  params: Record<string, string>,
  state: string | null | undefined,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (typeof state === 'string' && state.length <= MAX_STATE_LENGTH) url.searchParams.set('state', state);
  url.searchParams.set('iss', issuer);
  return url.href;
}
