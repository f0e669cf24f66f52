import type { Kysely } from 'kysely';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import {
  CustomOAuthError,
  InvalidClientError,
  InvalidClientMetadataError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { nowIso } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { InstallationSecrets } from '../../db/installation-secrets.js';
import type { DB } from '../../db/schema.js';
import type { ClientDocuments } from './client-documents.js';
import { ClientDocumentProblem, isClientIdUrl } from './client-id-url.js';
import { ClientMetadataProblem, registeredMetadata, type RegisteredMetadata } from './client-metadata.js';
import { clientSecretFor } from './client-secret.js';

/** The longest client id looked up (ours are 30 characters). */
const MAX_CLIENT_ID_LENGTH = 64;

/**
 * The router's clients store. Registered clients are over the database: their ids are
 * `ocl_…`; a confidential client's secret is derived, never stored (client-secret.ts), and
 * does not expire (`client_secret_expires_at: 0`). A client_id that is a URL names the
 * client's metadata document instead (client-documents.ts); such a client also has a row,
 * refreshed from each fetch of its document, which its authorization requests, grants and
 * tokens refer to and the pages read its name from.
 */
export class ClientsStore implements OAuthRegisteredClientsStore {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly secrets: InstallationSecrets,
    private readonly documents: ClientDocuments,
  ) {}

  /**
   * The client, or undefined when no client has that id. A refused metadata document throws
   * invalid_client with the reason, which the router answers as for an unknown client.
   */
  async getClient(clientId: string): Promise<OAuthClientInformationFull | undefined> {
    if (isClientIdUrl(clientId)) return this.documentClient(clientId);
    if (clientId.length > MAX_CLIENT_ID_LENGTH) return undefined;
    const row = await this.db.selectFrom('oauth_clients').selectAll().where('id', '=', clientId).executeTakeFirst();
    if (!row) return undefined;
    return this.information(row.id, JSON.parse(row.metadata) as RegisteredMetadata, row.created_at);
  }

  async registerClient(
    client: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>,
  ): Promise<OAuthClientInformationFull> {
    let metadata: RegisteredMetadata;
    try {
      metadata = registeredMetadata(client);
    } catch (error) {
      if (error instanceof ClientMetadataProblem)
        throw error.error === 'invalid_redirect_uri'
          ? new CustomOAuthError('invalid_redirect_uri', error.message)
          : new InvalidClientMetadataError(error.message);
      throw error;
    }
    // Unused registrations are pruned by the background workers (cleanup.ts), never here.
    const now = Date.now();
    const id = newId('ocl', now);
    const createdAt = nowIso(now);
    await this.db
      .insertInto('oauth_clients')
      .values({
        id,
        client_name: metadata.client_name ?? null,
        metadata: JSON.stringify(metadata),
        confidential: metadata.token_endpoint_auth_method === 'none' ? 0 : 1,
        created_at: createdAt,
      })
      .execute();
    return this.information(id, metadata, createdAt);
  }

  private async documentClient(clientId: string): Promise<OAuthClientInformationFull> {
    let resolved;
    try {
      resolved = await this.documents.resolve(clientId);
    } catch (error) {
      if (error instanceof ClientDocumentProblem) throw new InvalidClientError(error.message);
      throw error;
    }
    if (resolved.fetched) await this.saveDocumentClient(clientId, resolved.metadata, Date.now());
    return { ...resolved.metadata, client_id: clientId };
  }

  /**
   * The row of a client known by its document, written from the document just fetched. Its
   * `created_at` is the time of that fetch: like a registration, a row under which nobody
   * approved anything is pruned a day after (cleanup.ts), here a day after its document was
   * last read.
   */
  private async saveDocumentClient(clientId: string, metadata: RegisteredMetadata, now: number): Promise<void> {
    const row = {
      client_name: metadata.client_name ?? null,
      metadata: JSON.stringify(metadata),
      confidential: 0,
      created_at: nowIso(now),
    };
    await this.db
      .insertInto('oauth_clients')
      .values({ id: clientId, ...row })
      .onConflict((conflict) => conflict.column('id').doUpdateSet(row))
      .execute();
  }

  private async information(
    clientId: string,
    metadata: RegisteredMetadata,
    createdAt: string,
  ): Promise<OAuthClientInformationFull> {
    const secret =
      metadata.token_endpoint_auth_method === 'none'
        ? {}
        : { client_secret: await clientSecretFor(this.secrets, clientId), client_secret_expires_at: 0 };
    return {
      ...metadata,
      client_id: clientId,
      client_id_issued_at: Math.floor(Date.parse(createdAt) / 1000),
      ...secret,
    };
  }
}
