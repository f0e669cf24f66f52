import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { pinnedLookup } from './pinned-lookup.js';
import { bareHostname, isLocalhostName, judgeAddress, lookupHost, refusalMessage } from './receiver-address.js';

/** One HTTP POST to a receiver, with the address policy applied to the address actually dialled. */

/** The whole attempt, from DNS to the last byte of the answer. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Name resolution and the TCP connection: a receiver that cannot be reached fails fast. */
export const CONNECT_TIMEOUT_MS = 3_000;

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  allowPrivate: boolean;
  timeoutMs?: number;
  connectTimeoutMs?: number;
}

export type SendOutcome =
  | { ok: true; responseStatus: number; durationMs: number }
  | { ok: false; responseStatus: number | null; durationMs: number; error: string | null };

class ConnectTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`could not connect within ${timeoutMs / 1000} s`);
    this.name = 'ConnectTimeoutError';
  }
}

/**
 * Resolves like dns.lookup, but fails when any address of the name is refused. Checking
 * here, not only when the subscription was made, closes the gap of a name that later
 * resolves to an internal address.
 */
const guardedLookup =
  (allowPrivate: boolean): LookupFunction =>
  (hostname, options, callback) => {
    lookupHost(hostname).then(
      (addresses) => {
        if (addresses.length === 0)
          return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        const refused = addresses
          .map((address) => judgeAddress(address, allowPrivate))
          .find((verdict) => verdict.refusedAs);
        if (refused) return callback(new Error(refusalMessage(refused)), '', 0);
        pinnedLookup(addresses)(hostname, options, callback);
      },
      (error: Error) => callback(error, '', 0),
    );
  };

/** A short, operator-readable reason for the delivery log. */
function describeFailure(error: Error, timeoutMs: number): string {
  if (error instanceof ConnectTimeoutError) return error.message;
  const timedOut = error.name === 'AbortError' || error.name === 'TimeoutError';
  return timedOut ? `timed out after ${timeoutMs / 1000} s` : error.message.slice(0, 300);
}

/** The address policy for a URL whose host needs no lookup (an IP literal, or localhost). */
function refusedLiteral(host: string, allowPrivate: boolean): string | undefined {
  if (isLocalhostName(host)) return allowPrivate ? undefined : refusalMessage({ address: host, refusedAs: 'loopback' });
  if (!isIP(host)) return undefined;
  const verdict = judgeAddress(host, allowPrivate);
  return verdict.refusedAs ? refusalMessage(verdict) : undefined;
}

export function sendWebhook(input: SendRequest): Promise<SendOutcome> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  const url = new URL(input.url);
  const host = bareHostname(url).toLowerCase();
  const refused = refusedLiteral(host, input.allowPrivate);
  if (refused) return Promise.resolve({ ok: false, responseStatus: null, durationMs: 0, error: refused });
  const timeoutMs = input.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const connectTimeoutMs = input.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...input.headers, 'content-length': String(Buffer.byteLength(input.body)) },
    signal: AbortSignal.timeout(timeoutMs),
    // A fresh connection per attempt, so the connect timeout and the address check always apply.
    agent: false,
    ...(isIP(host) ? {} : { lookup: guardedLookup(input.allowPrivate) }),
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(url, options, (res) => {
      // The body is not used; draining it lets the socket close.
      res.resume();
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        resolve(
          status >= 200 && status < 300
            ? { ok: true, responseStatus: status, durationMs: elapsed() }
            : { ok: false, responseStatus: status, durationMs: elapsed(), error: null },
        );
      });
      res.on('error', (error: Error) =>
        resolve({
          ok: false,
          responseStatus: res.statusCode ?? null,
          durationMs: elapsed(),
          error: describeFailure(error, timeoutMs),
        }),
      );
    });
    req.on('socket', (socket: Socket) => {
      const timer = setTimeout(() => req.destroy(new ConnectTimeoutError(connectTimeoutMs)), connectTimeoutMs);
      socket.once('connect', () => clearTimeout(timer));
      req.once('close', () => clearTimeout(timer));
    });
    req.on('error', (error: Error) =>
      resolve({ ok: false, responseStatus: null, durationMs: elapsed(), error: describeFailure(error, timeoutMs) }),
    );
    req.end(input.body);
  });
}
