import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InstallationSecrets } from '../../db/installation-secrets.js';
import { browserCookie, readCookie } from '../cookies.js';
import { OIDC_LOGIN_PATH } from '../../http/page-paths.js';

/** A sign-in at the upstream provider must come back within 10 minutes, like a sign-in link. */
export const FLOW_TTL_MS = 10 * 60_000;
export const FLOW_COOKIE = 'wsx_oidc';
/** A sealed flow is a few hundred characters; anything much longer is not one of ours. */
const MAX_SEALED = 4096;

/** What the callback must check the provider's answer against, and where the browser goes next. */
export interface SignInFlow {
  state: string;
  nonce: string;
  codeVerifier: string;
  next: string;
  /** The workspace the person chose, when their email belongs to users of several. */
  workspace?: string;
  expiresAt: number;
}

const mac = (key: Buffer, payload: string): Buffer => createHmac('sha256', key).update(payload).digest();

/**
 * The flow travels in this browser's own cookie, MACed with an installation secret: the
 * server keeps nothing per attempt, the browser cannot change what the callback checks
 * against, and a callback opened in another browser (a forged or leaked link) finds no flow.
 */
export async function sealFlow(secrets: InstallationSecrets, flow: SignInFlow): Promise<string> {
  const payload = Buffer.from(JSON.stringify(flow)).toString('base64url');
  const key = await secrets.get('oidc-flow');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

/** The flow a cookie value carries, or undefined when absent, altered, malformed or expired. */
export async function openFlow(
  secrets: InstallationSecrets,
  sealed: string | undefined,
  now = Date.now(),
): Promise<SignInFlow | undefined> {
  if (sealed === undefined || sealed.length > MAX_SEALED) return undefined;
  const [payload, tag, extra] = sealed.split('.');
  if (!payload || !tag || extra !== undefined) return undefined;
  const expected = mac(await secrets.get('oidc-flow'), payload);
  const given = Buffer.from(tag, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const flow = JSON.parse(Buffer.from(payload, 'base64url').toString()) as SignInFlow;
  return flow.expiresAt > now ? flow : undefined;
}

/** The sealed flow of this browser's sign-in, if any. */
export const readFlowCookie = (header: string | undefined): string | undefined => readCookie(header, FLOW_COOKIE);

/**
 * Sent only to the sign-in routes (Path), never to the pages or the API. Set at the start,
 * cleared at the callback whatever its outcome: a flow is used once.
 */
export const flowCookie = (value: string, maxAgeSeconds: number, secure: boolean): string =>
  browserCookie(FLOW_COOKIE, value, maxAgeSeconds, secure, OIDC_LOGIN_PATH);
