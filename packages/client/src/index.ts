/** @wsx/client: a typed client for the wsx Workspace Execution External API. */
export { createWsxClient, type WsxClient, type WsxClientOptions } from './client.js';
export { ifMatch, type Conditional } from './conditional.js';
export type { OAuthSession, OAuthTokens } from './oauth.js';
export type { SyncWalk } from './sync.js';
export { UNEXPECTED_RESPONSE, WsxError, type WsxErrorCode } from './errors.js';
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from './webhooks.js';
export type {
  ApiErrorBody,
  components,
  ErrorCode,
  ItemOf,
  PaginatedPath,
  paths,
  Schemas,
  SuccessBody,
  SyncOptions,
  SyncPath,
  WebhookEvent,
} from './types.js';
