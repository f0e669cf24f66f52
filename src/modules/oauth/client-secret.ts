import { createHmac } from 'node:crypto';
import type { InstallationSecrets } from '../../db/installation-secrets.js';

/**
 * A confidential client's secret is derived from its id with a key of the installation
 * (HMAC-SHA256), so no client secret is stored: the registration answers it once, and the
 * clients store derives it again for the router's client authentication, which compares the
 * secret the client presents with the one the store answers.
 */
export async function clientSecretFor(secrets: InstallationSecrets, clientId: string): Promise<string> {
  const key = await secrets.get('oauth-client-secret');
  return createHmac('sha256', key).update(clientId, 'utf8').digest('base64url');
}
