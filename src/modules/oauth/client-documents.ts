import { LRUCache } from 'lru-cache';
import { fetchClientDocument } from './client-document-fetch.js';
import { documentLifetimeMs } from './client-document-lifetime.js';
import { documentMetadata } from './client-document.js';
import { clientIdUrl } from './client-id-url.js';
import type { RegisteredMetadata } from './client-metadata.js';

/** Documents kept in memory at most; past it, the least recently used goes. */
const MAX_CACHED_DOCUMENTS = 1000;

export interface DocumentPolicy {
  /** WSX_WEBHOOK_ALLOW_PRIVATE=1: document hosts on private addresses are accepted, as webhook receivers are. */
  allowPrivate: boolean;
  /** wsx runs on loopback http: plain http client_ids on a loopback host are accepted (client-id-url.ts). */
  localDevelopment: boolean;
}

export interface ResolvedDocument {
  metadata: RegisteredMetadata;
  /** Fetched for this call rather than taken from the cache: what wsx stored of the client is to be refreshed. */
  fetched: boolean;
}

/**
 * Clients known by the URL of their metadata document: each document is fetched, checked and
 * kept in this process's memory for as long as its caching headers say (bounded), so the
 * requests of one authorization (authorize, token, refreshes) read it once. Callers asking
 * for the same document at once share one fetch. A refused document is not kept: the next
 * request fetches it again, and is charged as a refusal like any other.
 */
export class ClientDocuments {
  readonly #cache = new LRUCache<string, RegisteredMetadata>({ max: MAX_CACHED_DOCUMENTS });
  /** Fetches under way, at most one per client_id; each ends within the fetch's time bound. */
  readonly #inFlight = new Map<string, Promise<RegisteredMetadata>>();

  constructor(private readonly policy: DocumentPolicy) {}

  /** The metadata of the client whose id is `clientId` (a URL); throws ClientDocumentProblem when refused. */
  async resolve(clientId: string): Promise<ResolvedDocument> {
    const cached = this.#cache.get(clientId);
    if (cached) return { metadata: cached, fetched: false };
    let pending = this.#inFlight.get(clientId);
    if (!pending) {
      pending = this.#fetch(clientId).finally(() => this.#inFlight.delete(clientId));
      this.#inFlight.set(clientId, pending);
    }
    return { metadata: await pending, fetched: true };
  }

  async #fetch(clientId: string): Promise<RegisteredMetadata> {
    const url = clientIdUrl(clientId, this.policy.localDevelopment);
    const fetched = await fetchClientDocument(url, this.policy.allowPrivate);
    const metadata = documentMetadata(clientId, fetched.body);
    const lifetime = documentLifetimeMs(fetched.headers, Date.now());
    if (lifetime > 0) this.#cache.set(clientId, metadata, { ttl: lifetime });
    return metadata;
  }
}
