import type { FastifyInstance } from 'fastify';
import { isLoopbackHost, type AppConfig } from '../config.js';

/**
 * The origin this server is reached at: WSX_PUBLIC_URL, or the derived default with the
 * port the server actually listens on (it differs from PORT when PORT=0 let the system pick).
 */
export function publicOrigin(config: AppConfig, app: FastifyInstance): string {
  if (!config.publicUrlDerived) return config.publicUrl;
  const address = app.server.address();
  if (!address || typeof address === 'string') return config.publicUrl;
  const url = new URL(config.publicUrl);
  url.port = String(address.port);
  return url.origin;
}

/**
 * Whether OAuth can be offered at `origin`: its endpoints must be https, or plain http on a
 * loopback host (the MCP SDK's router refuses any other issuer). A server on a LAN address
 * without WSX_PUBLIC_URL therefore has no OAuth endpoints.
 */
export function servesOAuth(origin: string): boolean {
  const url = new URL(origin);
  return url.protocol === 'https:' || isLoopbackHost(url.hostname);
}

/**
 * The issuer identifier of the authorization server at `origin`, as its metadata names it
 * (the SDK writes the issuer URL's href: the origin and a slash), and as every redirect back
 * to a client carries it in `iss` (RFC 9207).
 */
export const issuerOf = (origin: string): string => new URL(origin).href;
