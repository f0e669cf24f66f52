import { isIP } from 'node:net';
import { isLoopbackHost } from '../../config.js';
import { bareHostname, judgeAddress } from '../../events/receiver-address.js';

/**
 * A client_id that is a URL names the client's metadata document (a Client ID Metadata
 * Document, draft-ietf-oauth-client-id-metadata-document): wsx fetches the URL to learn the
 * client instead of looking up a registration. These are the rules such a client_id must
 * meet before anything is fetched.
 */

/** The longest client_id URL accepted: a browser carries it in the authorize URL beside the redirect URI. */
export const MAX_CLIENT_ID_URL_LENGTH = 2048;

/** Anything with a URI scheme: registered clients' ids (`ocl_…`) have none. */
const SCHEME_RE = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** Why a client_id URL or its document is refused; the message is the `error_description`. */
export class ClientDocumentProblem extends Error {
  constructor(reason: string) {
    super(`Client ID Metadata Document refused: ${reason}`);
    this.name = 'ClientDocumentProblem';
  }
}

/** Whether a client_id is to be read as the URL of a metadata document rather than a registration's id. */
export const isClientIdUrl = (clientId: string): boolean => SCHEME_RE.test(clientId);

/**
 * Whether the URL's host is this machine: `localhost`, or an address of 127.0.0.0/8 or ::1
 * (as the webhook address judgement classifies it, the wrapped IPv6 forms included).
 */
export function isLoopbackUrl(url: URL): boolean {
  const host = bareHostname(url).toLowerCase();
  if (host === 'localhost') return true;
  return isIP(host) !== 0 && isLoopbackAddress(host);
}

/** Whether one resolved address is a loopback one. */
export const isLoopbackAddress = (address: string): boolean => judgeAddress(address, false).refusedAs === 'loopback';

/** `.` and `..` path segments, plain or percent-encoded, which a URL parser would resolve away. */
function hasDotSegment(raw: string): boolean {
  const afterScheme = raw.indexOf('//') + 2;
  const pathStart = raw.indexOf('/', afterScheme);
  if (pathStart < 0) return false;
  const path = raw.slice(pathStart).split(/[?#]/, 1)[0];
  return path.split('/').some((segment) => {
    const plain = segment.replace(/%2e/gi, '.');
    return plain === '.' || plain === '..';
  });
}

/**
 * The client_id as a document URL, or ClientDocumentProblem. It is https with a path, no
 * fragment, no user information and no dot segments, written in its normal form (as the URL
 * standard serialises it), so that the string the client sends, the one fetched and the one
 * the document must repeat are the same. Plain http is accepted only on a loopback host, and
 * only while wsx itself runs on loopback http (`localDevelopment`): a client being developed
 * on the same machine serves its document there.
 */
export function clientIdUrl(clientId: string, localDevelopment: boolean): URL {
  if (clientId.length > MAX_CLIENT_ID_URL_LENGTH)
    throw new ClientDocumentProblem(`the client_id URL is longer than ${MAX_CLIENT_ID_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new ClientDocumentProblem('the client_id is not a valid URL');
  }
  if (url.protocol === 'http:') {
    if (!localDevelopment || !isLoopbackUrl(url))
      throw new ClientDocumentProblem(
        'the client_id URL must use https (plain http only on localhost, 127.0.0.1 or [::1], ' +
          'and only while this server itself runs on loopback http for local development)',
      );
  } else if (url.protocol !== 'https:') throw new ClientDocumentProblem('the client_id URL must use https');
  if (url.username || url.password)
    throw new ClientDocumentProblem('the client_id URL must not carry user information');
  if (clientId.includes('#')) throw new ClientDocumentProblem('the client_id URL must not have a fragment');
  if (hasDotSegment(clientId))
    throw new ClientDocumentProblem('the client_id URL must not have "." or ".." path segments');
  if (url.pathname === '/')
    throw new ClientDocumentProblem(
      'the client_id URL must have a path naming the document, such as https://app.example/oauth/client.json',
    );
  if (url.href !== clientId)
    throw new ClientDocumentProblem(`the client_id URL must be written in its normal form: ${url.href}`);
  return url;
}

/** The host of a client_id that is a document URL, for the pages; undefined for a registered client's id. */
export function documentHost(clientId: string): string | undefined {
  if (!isClientIdUrl(clientId) || !URL.canParse(clientId)) return undefined;
  return new URL(clientId).host;
}

/** Whether wsx runs for local development: its issuer is plain http on a loopback host. */
export const isLocalDevelopment = (issuer: URL): boolean =>
  issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname);
