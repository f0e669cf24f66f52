/** A CSP source for an http(s) origin: host names and IPv4 addresses with an optional port. */
const HOST_SOURCE_RE = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;
const SCHEME_RE = /^[A-Za-z][A-Za-z0-9+.-]*:$/;

/**
 * Where a client's redirect URI sends the browser: what the consent page names (the host of
 * a web or loopback address, the scheme of a native app's custom scheme) and the CSP
 * form-action source that lets the answered form follow the redirect there.
 */
export function redirectTarget(redirectUri: string): { label: string; formSource: string } {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return { label: redirectUri, formSource: '' };
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    const origin = `${url.protocol}//${url.host}`;
    // An IPv6 literal has no CSP host-source spelling: allow its scheme instead.
    return { label: url.host, formSource: HOST_SOURCE_RE.test(origin) ? origin : url.protocol };
  }
  return {
    label: `${url.protocol} (an app on this device)`,
    formSource: SCHEME_RE.test(url.protocol) ? url.protocol : '',
  };
}
