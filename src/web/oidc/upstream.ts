import type { Configuration } from 'openid-client';
import type { UpstreamOidc } from '../../config.js';

/** What wsx learns from the provider: the person's email, and whether the provider verified it. */
export interface UpstreamIdentity {
  email: string | undefined;
  emailVerified: boolean;
}

/** The checks a sign-in started with, kept by the browser (flow-cookie.ts) until the callback. */
export interface StartedSignIn {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface UpstreamProvider {
  start(redirectUri: string): Promise<StartedSignIn>;
  /** Exchanges the code of `callbackUrl` and validates the ID token against the started sign-in's checks. */
  finish(callbackUrl: URL, checks: Omit<StartedSignIn, 'url'>): Promise<UpstreamIdentity>;
}

/**
 * wsx as a confidential client of the configured provider, all protocol work done by
 * openid-client: discovery, authorization code with PKCE S256, state and nonce, the token
 * exchange and ID-token validation. Discovery runs at the first sign-in, not at start-up,
 * so wsx starts while the provider is down; a failed discovery is tried again next time.
 * openid-client itself is loaded then too, so a start does not wait for it.
 */
export function upstreamProvider(settings: UpstreamOidc): UpstreamProvider {
  const issuer = new URL(settings.issuer);
  let discovered: Promise<Configuration> | undefined;
  const configuration = (): Promise<Configuration> => {
    if (!discovered) {
      discovered = import('openid-client').then((oidc) =>
        oidc.discovery(issuer, settings.clientId, settings.clientSecret, undefined, {
          // Config accepts plain http only for a loopback issuer (a provider on the same machine).
          execute: issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
        }),
      );
      discovered.catch(() => (discovered = undefined));
    }
    return discovered;
  };

  return {
    async start(redirectUri) {
      const [config, oidc] = await Promise.all([configuration(), import('openid-client')]);
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email',
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url, state, nonce, codeVerifier };
    },
    async finish(callbackUrl, checks) {
      const [config, oidc] = await Promise.all([configuration(), import('openid-client')]);
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      // Many providers put the email in the ID token only when asked through the claims
      // parameter; otherwise it is at the userinfo endpoint, bound to the same subject.
      const source =
        claims.email === undefined ? await oidc.fetchUserInfo(config, tokens.access_token, claims.sub) : claims;
      return {
        email: typeof source.email === 'string' ? source.email : undefined,
        emailVerified: source.email_verified === true,
      };
    },
  };
}
