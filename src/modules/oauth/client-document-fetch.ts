import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { pinnedLookup } from '../../events/pinned-lookup.js';
import { bareHostname, judgeAddress, resolveWithin } from '../../events/receiver-address.js';
import { ClientDocumentProblem, isLoopbackAddress } from './client-id-url.js';

/**
 * One GET of a client's metadata document. Anyone can make wsx fetch a URL by naming it as a
 * client_id, so the fetch keeps to the rules of webhook deliveries (src/events): the host's
 * addresses are judged first as a receiver's are (WSX_WEBHOOK_ALLOW_PRIVATE=1 admits private
 * ones), the connection goes to those judged addresses and nowhere else (no second lookup a
 * rebinding name could answer differently), no redirect is followed, and both the time and
 * the size are bounded.
 */

/** The whole fetch, name resolution included. */
export const DOCUMENT_TIMEOUT_MS = 5_000;
/** The largest document read (the draft's suggestion); client metadata is a few hundred bytes. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;

export interface FetchedDocument {
  body: Buffer;
  /** The answer's caching headers (see client-document-lifetime.ts). */
  headers: { cacheControl?: string; expires?: string; date?: string };
}

/**
 * The addresses the URL's host has now, each one judged. An https host is judged as a
 * webhook receiver's; a plain http one is only ever a loopback host (client-id-url.ts), and
 * every address it resolves to must be a loopback one.
 */
async function judgedAddresses(url: URL, allowPrivate: boolean): Promise<string[]> {
  const host = bareHostname(url).toLowerCase();
  const addresses = isIP(host) ? [host] : await resolveWithin(host, DOCUMENT_TIMEOUT_MS);
  if (!addresses || addresses.length === 0)
    throw new ClientDocumentProblem(`the client_id URL's host ${url.hostname} does not resolve`);
  if (url.protocol === 'http:') {
    const outside = addresses.find((address) => !isLoopbackAddress(address));
    if (outside)
      throw new ClientDocumentProblem(`the http client_id URL's host resolves to ${outside}, not a loopback address`);
    return addresses;
  }
  for (const address of addresses) {
    const verdict = judgeAddress(address, allowPrivate);
    if (verdict.refusedAs)
      throw new ClientDocumentProblem(
        `the client_id URL's host resolves to ${verdict.address}, which is not a public unicast address (${verdict.refusedAs})`,
      );
  }
  return addresses;
}

const tooLarge = () =>
  new ClientDocumentProblem(
    `the document is larger than ${MAX_DOCUMENT_BYTES} bytes; client metadata fits in far less`,
  );

const header = (response: IncomingMessage, name: string): string | undefined => {
  const value = response.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** The body of a 200 answer, read up to the size bound; anything else is refused. */
async function readDocument(response: IncomingMessage): Promise<FetchedDocument> {
  const status = response.statusCode ?? 0;
  if (status >= 300 && status < 400)
    throw new ClientDocumentProblem(
      `the client_id URL answered a redirect (HTTP ${status}), which is not followed: serve the document at the client_id URL itself`,
    );
  if (status !== 200) throw new ClientDocumentProblem(`the client_id URL answered HTTP ${status}, not 200`);
  if (Number(response.headers['content-length']) > MAX_DOCUMENT_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_DOCUMENT_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return {
    body: Buffer.concat(chunks),
    headers: {
      cacheControl: header(response, 'cache-control'),
      expires: header(response, 'expires'),
      date: header(response, 'date'),
    },
  };
}

/** Fetches the document at `url` (a client_id that clientIdUrl accepted); throws ClientDocumentProblem. */
export async function fetchClientDocument(url: URL, allowPrivate: boolean): Promise<FetchedDocument> {
  const deadline = Date.now() + DOCUMENT_TIMEOUT_MS;
  const addresses = await judgedAddresses(url, allowPrivate);
  const signal = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<FetchedDocument>((resolve, reject) => {
    const fail = (error: unknown) =>
      reject(
        error instanceof ClientDocumentProblem
          ? error
          : new ClientDocumentProblem(
              signal.aborted
                ? `fetching it took longer than ${DOCUMENT_TIMEOUT_MS / 1000} s`
                : `fetching it failed: ${String((error as Error).message).slice(0, 200)}`,
            ),
      );
    const request = send(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json' },
        signal,
        // A fresh connection per fetch: it goes to the judged addresses, and is closed after.
        agent: false,
        ...(isIP(bareHostname(url)) ? {} : { lookup: pinnedLookup(addresses) }),
      },
      (response) => {
        void readDocument(response)
          .then(resolve, fail)
          .finally(() => request.destroy());
      },
    );
    request.on('error', fail);
    request.end();
  });
}
