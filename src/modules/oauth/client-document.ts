import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { ClientDocumentProblem } from './client-id-url.js';
import { ClientMetadataProblem, registeredMetadata, type RegisteredMetadata } from './client-metadata.js';

/**
 * What a fetched Client ID Metadata Document must hold. It is the client's metadata as a
 * registration would send it (RFC 7591 fields, checked by the same rules and bounds as a
 * registration, client-metadata.ts), plus its own URL as `client_id`. A client known by its
 * document is public: it has no secret, and authenticates at the token endpoint with PKCE
 * alone.
 */

/** Fields a public client's document must not hold: wsx would have no way to check them. */
const SECRET_FIELDS = ['client_secret', 'client_secret_expires_at'];

function jsonObject(body: Buffer): Record<string, unknown> {
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new ClientDocumentProblem('the document is not JSON');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new ClientDocumentProblem('the document is not a JSON object');
  return document as Record<string, unknown>;
}

/** The client's metadata as wsx keeps it, from the document fetched at `clientId`; throws ClientDocumentProblem. */
export function documentMetadata(clientId: string, body: Buffer): RegisteredMetadata {
  const document = jsonObject(body);
  if (document.client_id !== clientId)
    throw new ClientDocumentProblem(
      "the document's client_id differs from the URL it was fetched from; it must be that URL, character for character",
    );
  const secret = SECRET_FIELDS.find((field) => field in document);
  if (secret)
    throw new ClientDocumentProblem(`the document holds ${secret}, but a client known by its document has no secret`);
  const method = document.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    throw new ClientDocumentProblem('token_endpoint_auth_method must be "none" or absent: such a client is public');
  if (!Array.isArray(document.redirect_uris) || document.redirect_uris.length === 0)
    throw new ClientDocumentProblem('the document must list its redirect_uris, at least one');
  const parsed = OAuthClientMetadataSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ClientDocumentProblem(`${issue.path.join('.') || 'the document'}: ${issue.message}`);
  }
  try {
    return registeredMetadata({ ...parsed.data, token_endpoint_auth_method: 'none' });
  } catch (error) {
    if (error instanceof ClientMetadataProblem) throw new ClientDocumentProblem(error.message);
    throw error;
  }
}
