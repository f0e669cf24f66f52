import type { Client, ClientPathsWithMethod, MaybeOptionalInit, MethodResponse } from 'openapi-fetch';
import type { Conditional } from './conditional.js';
import type { components, paths } from './generated/openapi.js';
import type { SyncWalk } from './sync.js';

export type { components, paths };

/** Every named schema of the document: `Schemas['Issue']`, `Schemas['Project']`, `Schemas['Status']`… */
export type Schemas = components['schemas'];

/** The machine codes of the error body; branch on these. */
export type ErrorCode = Schemas['ErrorCode'];

/** The error body every failed call answers (docs/api.md, "Errors"). */
export type ApiErrorBody = Schemas['Error'];

/** The signed body of a webhook delivery: one member per event type, discriminated by `type`. */
export type WebhookEvent = Schemas['WebhookEvent'];

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

/** GET paths whose answer is a page (an item array beside `pageInfo`) that take a `cursor`. */
export type PaginatedPath = {
  [P in PathsFor<'get'>]: SuccessBody<'get', P> extends { pageInfo: { nextCursor: string | null } }
    ? QueryOf<P> extends { cursor?: string }
      ? P
      : never
    : never;
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

/** A GET sent with the ETag the caller holds: the new body, or `notModified` (304). */
export type GetIfChanged = <P extends PathsFor<'get'>, Init extends InitFor<'get', P>>(
  path: P,
  etag: string | undefined,
  ...init: InitArgument<Init>
) => Promise<Conditional<SuccessBody<'get', P, Init>>>;

/** The query parameters of a GET path. */
type QueryOf<P extends PathsFor<'get'>> = NonNullable<paths[P]['get']['parameters']['query']>;

/** Lists that can be walked by `updatedAt` (they take `updatedSince` and `sort=updatedAt`). */
export type SyncPath = {
  [P in PaginatedPath]: QueryOf<P> extends { updatedSince?: string } ? P : never;
}[PaginatedPath];

export interface SyncOptions<P extends SyncPath> {
  /** The `since` of the previous walk; without it the walk starts at the oldest record. */
  since?: string;
  /** The list's other filters (project, team…) and page size. */
  query?: Omit<QueryOf<P>, 'sort' | 'updatedSince' | 'cursor'>;
}

export type Sync = <P extends SyncPath>(path: P, options?: SyncOptions<P>) => SyncWalk<ItemOf<P>>;
