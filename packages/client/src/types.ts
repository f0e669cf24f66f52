import type { Client, ClientPathsWithMethod, MaybeOptionalInit, MethodResponse } from 'openapi-fetch';
import type { components, paths } from './generated/openapi.js';

export type { components, paths };

/** Every named schema of the document (`Schemas['Error']`, and the resource schemas it names). */
export type Schemas = components['schemas'];

/** The machine codes of the error body; branch on these. */
export type ErrorCode = Schemas['Error']['code'];

/** The error body every failed call answers (CONTRACT.md §2). */
export type ApiErrorBody = Schemas['Error'];

/**
 * The signed body of a webhook delivery: `Schemas['WebhookEvent']` (one member per event type,
 * discriminated by `type`) when the document names it, else the envelope with untyped `data`.
 */
export type WebhookEvent = Schemas extends { WebhookEvent: infer Event } ? Event : WebhookEnvelope;

interface WebhookEnvelope {
  id: string;
  type: string;
  createdAt: string;
  workspaceId: string;
  actor: { kind: string; id: string };
  data: Record<string, unknown>;
}

/** The openapi-fetch client the wrapper drives. */
export type RawClient = Client<paths, 'application/json'>;

export type Method = 'get' | 'post' | 'patch' | 'delete';

/** The paths that answer `M`. */
export type PathsFor<M extends Method> = ClientPathsWithMethod<RawClient, M>;

/** The options of one call (path, query and header parameters, body, signal…), typed by path. */
export type InitFor<M extends Method, P extends PathsFor<M>> = MaybeOptionalInit<paths[P], M>;

/** The success body of one call; `undefined` for a 204, which openapi-fetch types as `never`. */
export type SuccessBody<M extends Method, P extends PathsFor<M>, Init = object> =
  MethodResponse<RawClient, M, P, Init> extends infer Body ? ([Body] extends [never] ? undefined : Body) : never;

/** openapi-fetch's rule for its init argument: optional when no key of it is required. */
type InitArgument<Init> = RequiredKeys<Init> extends never ? [init?: Init] : [init: Init];
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

/** One typed HTTP method: answers the success body, throws `WsxError` on an error answer. */
export type WsxMethod<M extends Method> = <P extends PathsFor<M>, Init extends InitFor<M, P>>(
  path: P,
  ...init: InitArgument<Init>
) => Promise<SuccessBody<M, P, Init>>;

/** GET paths whose answer is a page: an item array beside `pageInfo`. */
export type PaginatedPath = {
  [P in PathsFor<'get'>]: SuccessBody<'get', P> extends { pageInfo: { nextCursor: string | null } } ? P : never;
}[PathsFor<'get'>];

/** The item type of a paginated path (the element of its one array beside `pageInfo`). */
export type ItemOf<P extends PaginatedPath> = {
  [K in Exclude<keyof SuccessBody<'get', P>, 'pageInfo'>]: SuccessBody<'get', P>[K] extends readonly (infer Item)[]
    ? Item
    : never;
}[Exclude<keyof SuccessBody<'get', P>, 'pageInfo'>];

export type Paginate = <P extends PaginatedPath, Init extends InitFor<'get', P>>(
  path: P,
  ...init: InitArgument<Init>
) => AsyncGenerator<ItemOf<P>, void, undefined>;
