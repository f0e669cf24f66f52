import type { OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ClientNameProblem, normalisedClientName } from './client-name.js';

/**
 * What a registering client may say about itself (RFC 7591), checked and bounded. The router
 * has checked the shapes (strings, arrays, URLs); this decides what wsx accepts, replaces
 * values it does not support by ones it does (as RFC 7591 §2 allows), and keeps only the
 * fields it answers back. The result is stored as the client's metadata.
 */

const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const MAX_SHORT_TEXT = 200;
const MAX_CONTACTS = 10;
const MAX_CONTACT_LENGTH = 254;

/** Loopback hosts: the only ones plain http may redirect to (RFC 8252 §7.3). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Schemes that are never a native app's redirect: they run code, read local data or hand
 * the code to another program than the client.
 */
const REFUSED_SCHEMES = new Set([
  'javascript',
  'data',
  'vbscript',
  'file',
  'blob',
  'about',
  'filesystem',
  'ftp',
  'ws',
  'wss',
  'mailto',
  'tel',
  'sms',
]);

const SUPPORTED_GRANT_TYPES = ['authorization_code', 'refresh_token'];

/**
 * A registration wsx refuses; the message is the `error_description`, `error` the RFC 7591
 * code: `invalid_redirect_uri` for the redirect URIs, `invalid_client_metadata` otherwise.
 */
export class ClientMetadataProblem extends Error {
  constructor(
    message: string,
    readonly error: 'invalid_redirect_uri' | 'invalid_client_metadata' = 'invalid_client_metadata',
  ) {
    super(message);
  }
}

const redirectProblem = (message: string) => new ClientMetadataProblem(message, 'invalid_redirect_uri');

export interface RegisteredMetadata {
  redirect_uris: string[];
  token_endpoint_auth_method: 'none' | 'client_secret_post';
  grant_types: string[];
  response_types: string[];
  client_name?: string;
  client_uri?: string;
  logo_uri?: string;
  tos_uri?: string;
  policy_uri?: string;
  scope?: string;
  contacts?: string[];
  software_id?: string;
  software_version?: string;
}

/**
 * Why a redirect URI is refused, or undefined: https anywhere, http on a loopback host (any
 * port, RFC 8252 §7.3), or a private-use scheme as native apps use, in reverse domain-name
 * form (`com.example.app:/cb`, RFC 8252 §7.1); never a fragment or user information. A
 * scheme without a period (`myapp:`) is anyone's to claim on a device (§8.4), and some
 * (`x-safari-https:`) hand the answer to another program than the client.
 */
function redirectUriProblem(value: string): string | undefined {
  if (value.length > MAX_URI_LENGTH) return `is longer than ${MAX_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URI';
  }
  if (value.includes('#')) return 'must not have a fragment';
  if (url.username || url.password) return 'must not carry user information';
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') return url.hostname ? undefined : 'has no host';
  if (scheme === 'http')
    return LOOPBACK_HOSTS.has(url.hostname)
      ? undefined
      : 'uses http on a host other than localhost, 127.0.0.1 or [::1]; use https';
  if (REFUSED_SCHEMES.has(scheme)) return `uses the ${scheme}: scheme, which cannot be a redirect`;
  if (!scheme.includes('.'))
    return (
      `uses the private-use scheme ${scheme}:, which must be a reverse domain name the app controls, ` +
      'such as com.example.app:/callback (RFC 8252 §7.1); or redirect to http://127.0.0.1 or an https URL'
    );
  return undefined;
}

/** Letters a person could be misled by on the consent page: control and bidirectional-formatting characters. */
const MISLEADING_RE = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

function text(field: string, value: string | undefined, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (value.length > max) throw new ClientMetadataProblem(`${field} is longer than ${max} characters`);
  if (MISLEADING_RE.test(value)) throw new ClientMetadataProblem(`${field} holds control or direction characters`);
  return value;
}

function subsetOf(field: string, values: string[] | undefined, supported: string[], fallback: string[]): string[] {
  if (values === undefined || values.length === 0) return fallback;
  const unsupported = values.filter((value) => !supported.includes(value));
  if (unsupported.length > 0)
    throw new ClientMetadataProblem(
      `${field} ${unsupported.slice(0, 3).join(', ')} is not supported (supported: ${supported.join(', ')})`,
    );
  return [...new Set(values)];
}

/**
 * Token endpoint authentication: `none` (a public client, the usual native or desktop
 * client) or a secret; `client_secret_basic` (RFC 7591's default when none is named) is
 * answered as `client_secret_post`, the form the token endpoint reads.
 */
function authMethod(value: string | undefined): RegisteredMetadata['token_endpoint_auth_method'] {
  if (value === 'none') return 'none';
  if (value === undefined || value === 'client_secret_post' || value === 'client_secret_basic')
    return 'client_secret_post';
  throw new ClientMetadataProblem(
    `token_endpoint_auth_method ${text('token_endpoint_auth_method', value, MAX_SHORT_TEXT)} ` +
      'is not supported (supported: none, client_secret_post)',
  );
}

/** The name as stored (see client-name.ts), refused as client metadata. */
function clientName(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return normalisedClientName(value);
  } catch (error) {
    if (error instanceof ClientNameProblem) throw new ClientMetadataProblem(error.message);
    throw error;
  }
}

/** The metadata wsx registers for `requested`; throws ClientMetadataProblem when it is refused. */
export function registeredMetadata(requested: OAuthClientMetadata): RegisteredMetadata {
  const uris = requested.redirect_uris;
  if (uris.length === 0) throw redirectProblem('redirect_uris must name at least one redirect URI');
  if (uris.length > MAX_REDIRECT_URIS) throw redirectProblem(`redirect_uris holds more than ${MAX_REDIRECT_URIS} URIs`);
  uris.forEach((uri, index) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw redirectProblem(`redirect_uris[${index}] ${problem}`);
  });
  if ((requested.contacts?.length ?? 0) > MAX_CONTACTS)
    throw new ClientMetadataProblem(`contacts holds more than ${MAX_CONTACTS} entries`);
  const contacts = requested.contacts?.map((contact, index) =>
    text(`contacts[${index}]`, contact, MAX_CONTACT_LENGTH),
  ) as string[] | undefined;
  const optional: Omit<RegisteredMetadata, 'redirect_uris' | 'token_endpoint_auth_method'> = {
    grant_types: subsetOf('grant_types', requested.grant_types, SUPPORTED_GRANT_TYPES, SUPPORTED_GRANT_TYPES),
    response_types: subsetOf('response_types', requested.response_types, ['code'], ['code']),
    client_name: clientName(requested.client_name),
    client_uri: text('client_uri', requested.client_uri, MAX_URI_LENGTH),
    logo_uri: text('logo_uri', requested.logo_uri, MAX_URI_LENGTH),
    tos_uri: text('tos_uri', requested.tos_uri, MAX_URI_LENGTH),
    policy_uri: text('policy_uri', requested.policy_uri, MAX_URI_LENGTH),
    scope: text('scope', requested.scope, MAX_SHORT_TEXT),
    contacts,
    software_id: text('software_id', requested.software_id, MAX_SHORT_TEXT),
    software_version: text('software_version', requested.software_version, MAX_SHORT_TEXT),
  };
  // Absent fields stay absent in the answer rather than reading `undefined`.
  const present = Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined));
  return {
    redirect_uris: [...new Set(uris)],
    token_endpoint_auth_method: authMethod(requested.token_endpoint_auth_method),
    ...(present as typeof optional),
  };
}
