import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface UpstreamAccount {
  email?: string;
  email_verified?: boolean;
}

export interface Upstream {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The accounts people sign in with, by subject. */
  accounts: Map<string, UpstreamAccount>;
  /** The subject the next sign-in logs in as: the interaction asks nothing and logs this one in. */
  signInAs: string;
  close: () => Promise<void>;
}

/**
 * An OpenID Connect provider (panva's oidc-provider) in this process, on a loopback port:
 * one confidential client for wsx with `redirectUri`, accounts with email claims, and an
 * interaction that logs `signInAs` in and grants `openid email` without a page, so a test
 * drives the whole flow with fetch.
 */
export async function startUpstream(redirectUri: string): Promise<Upstream> {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const upstream: Upstream = {
    issuer,
    clientId: 'wsx-test',
    clientSecret: 'wsx-test-client-secret-long-enough',
    accounts: new Map(),
    signInAs: '',
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: upstream.clientId,
        client_secret: upstream.clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    findAccount: (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: () => ({ sub, ...upstream.accounts.get(sub) }),
    }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ['test-upstream-cookie-key'] },
    // Fixed lifetimes: the defaults work but print a notice each.
    ttl: { AccessToken: 600, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    jwks: { keys: [{ ...signingKey, use: 'sig', kid: 'test' }] },
  });
  const callback = provider.callback();
  handle = (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const grant = new provider.Grant({ accountId: upstream.signInAs, clientId: String(details.params.client_id) });
      grant.addOIDCScope('openid email');
      const result = { login: { accountId: upstream.signInAs }, consent: { grantId: await grant.save() } };
      await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  };
  return upstream;
}
