import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { approveAuthorization } from '../../src/modules/oauth/authorization-requests.js';
import type { Harness } from './harness.js';

/**
 * The OAuth client's side of the flow over real HTTP, for tests that need a connector's
 * tokens or send many OAuth requests: registration, /authorize, approval (through
 * approveAuthorization, as the consent page does), /token. Each call may carry headers,
 * such as an X-Forwarded-For naming the client address behind a trusted proxy.
 */

export const LOOPBACK_REDIRECT = 'http://127.0.0.1:33418/callback';

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/** A fresh address per use: counters in a shared Redis outlive one test run. */
export const randomIPv4 = (): string => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/** Starts the app listening on a loopback port; answers its base URL. */
export async function listening(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** The workspace and user id of `handle` in acme, as a session or an approval names a person. */
export async function personOf(h: Harness, handle: string) {
  const row = await h.database.db
    .selectFrom('users as u')
    .innerJoin('workspaces as w', 'w.id', 'u.workspace_id')
    .select(['u.id', 'u.workspace_id'])
    .where('w.slug', '=', 'acme')
    .where('u.handle', '=', handle)
    .executeTakeFirstOrThrow();
  return { workspaceId: row.workspace_id, userId: row.id };
}

const answer = async (response: Response): Promise<Answer> => {
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
};

export const registerClient = async (base: string, metadata: Record<string, unknown>, headers = {}) =>
  answer(
    await fetch(`${base}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(metadata),
    }),
  );

/** Registers a public client with the loopback redirect; answers its client_id. */
export async function publicClient(base: string, headers = {}, name = 'Test Desktop'): Promise<string> {
  const registered = await registerClient(
    base,
    { client_name: name, redirect_uris: [LOOPBACK_REDIRECT], token_endpoint_auth_method: 'none' },
    headers,
  );
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}`);
  return registered.body.client_id as string;
}

export const tokenRequest = async (base: string, params: Record<string, string>, headers = {}) =>
  answer(
    await fetch(`${base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(params),
    }),
  );

/** GET /authorize with PKCE; answers the response (a 302 to the consent page when all is well). */
export async function authorizeRequest(base: string, clientId: string, challenge: string, headers = {}) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: LOOPBACK_REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'read write',
    state: 'st-1',
  });
  return fetch(`${base}/authorize?${query}`, { redirect: 'manual', headers });
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * A client connected for read and write as `person`: registered, authorized, approved and
 * its code exchanged. Answers its client_id and first token answer.
 */
export async function connectClient(
  h: Harness,
  base: string,
  person: { workspaceId: string; userId: string },
  headers = {},
) {
  const clientId = await publicClient(base, headers);
  const { verifier, challenge } = pkce();
  const authorized = await authorizeRequest(base, clientId, challenge, headers);
  if (authorized.status !== 302) throw new Error(`authorize answered ${authorized.status}`);
  const requestId = new URL(authorized.headers.get('location')!, base).searchParams.get('request')!;
  const redirect = new URL(await approveAuthorization(h.database.db, requestId, person, ['read', 'write'], `${base}/`));
  const exchanged = await tokenRequest(
    base,
    {
      grant_type: 'authorization_code',
      client_id: clientId,
      code: redirect.searchParams.get('code')!,
      code_verifier: verifier,
      redirect_uri: LOOPBACK_REDIRECT,
    },
    headers,
  );
  if (exchanged.status !== 200) throw new Error(`the code exchange answered ${exchanged.status}`);
  return { clientId, tokens: exchanged.body as { access_token: string; refresh_token: string } };
}

/** One refresh of a connector's tokens. */
export const refresh = (base: string, clientId: string, refreshToken: string, headers = {}) =>
  tokenRequest(base, { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken }, headers);
