import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { bareHostname, isRefusedAddress } from './receiver-address.js';

/** One HTTP POST to a receiver, with the address policy applied to the address actually dialled. */

export const DELIVERY_TIMEOUT_MS = 10_000;

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  allowPrivate: boolean;
  timeoutMs?: number;
}

export type SendOutcome =
  | { ok: true; responseStatus: number; durationMs: number }
  | { ok: false; responseStatus: number | null; durationMs: number; error: string | null };

const refusedMessage = (address: string): string => `receiver address ${address} is loopback, private or link-local`;

/**
 * Resolves like dns.lookup, but fails when any address of the name is refused. Checking
 * here, not only when the subscription was made, closes the gap of a name that later
 * resolves to an internal address.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const bad = addresses.find((entry) => isRefusedAddress(entry.address));
    if (bad) return callback(new Error(refusedMessage(bad.address)), '', 0);
    if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0].address, addresses[0].family);
  });
};

/** A short, operator-readable reason for the delivery log. */
function describeFailure(error: Error, timeoutMs: number): string {
  const timedOut = error.name === 'AbortError' || error.name === 'TimeoutError';
  return timedOut ? `timed out after ${timeoutMs / 1000} s` : error.message.slice(0, 300);
}

export function sendWebhook(input: SendRequest): Promise<SendOutcome> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  const url = new URL(input.url);
  const host = bareHostname(url);
  if (!input.allowPrivate && isIP(host) && isRefusedAddress(host)) {
    return Promise.resolve({ ok: false, responseStatus: null, durationMs: 0, error: refusedMessage(host) });
  }
  const timeoutMs = input.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...input.headers, 'content-length': String(Buffer.byteLength(input.body)) },
    signal: AbortSignal.timeout(timeoutMs),
    ...(input.allowPrivate ? {} : { lookup: guardedLookup }),
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(url, options, (res) => {
      // The body is not used; draining it lets the socket close or be reused.
      res.resume();
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        resolve(status >= 200 && status < 300
          ? { ok: true, responseStatus: status, durationMs: elapsed() }
          : { ok: false, responseStatus: status, durationMs: elapsed(), error: null });
      });
      res.on('error', (error: Error) => resolve({ ok: false, responseStatus: res.statusCode ?? null, durationMs: elapsed(), error: describeFailure(error, timeoutMs) }));
    });
    req.on('error', (error: Error) => resolve({ ok: false, responseStatus: null, durationMs: elapsed(), error: describeFailure(error, timeoutMs) }));
    req.end(input.body);
  });
}
