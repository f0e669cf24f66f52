import type { ApiErrorBody, ErrorCode } from './types.js';

/**
 * The code of an error answer that is not the API's error body (a proxy's HTML page, an
 * empty 502): the client's own, never sent by the server.
 */
export const UNEXPECTED_RESPONSE = 'UNEXPECTED_RESPONSE';

/** The API's codes, and the client's own UNEXPECTED_RESPONSE. */
export type WsxErrorCode = ErrorCode | typeof UNEXPECTED_RESPONSE;

/** An error answer of the API, with the fields of its body (docs/api.md, "Errors"). */
export class WsxError extends Error {
  override readonly name = 'WsxError';
  /** Machine-readable code: branch on this, not on the message. */
  readonly code: WsxErrorCode;
  readonly status: number;
  /** Context: the offending field, id or key; `unknownFields`, `max`, `allowed` where they apply. */
  readonly details: ApiErrorBody['details'];
  /** How to recover. */
  readonly suggestion: string;
  readonly method: string;
  /** The request's path and query (the path template if the answer names no URL). */
  readonly path: string;

  constructor(call: { method: string; path: string; status: number; statusText?: string }, body: unknown) {
    const api = isErrorBody(body) ? body : undefined;
    const message = api?.error ?? `HTTP ${call.status} ${call.statusText ?? ''}`.trim();
    super(`${call.method} ${call.path}: ${message}`);
    this.code = api?.code ?? UNEXPECTED_RESPONSE;
    this.status = call.status;
    this.details = api?.details ?? { body };
    this.suggestion = api?.suggestion ?? '';
    this.method = call.method;
    this.path = call.path;
  }
}

const isErrorBody = (body: unknown): body is ApiErrorBody =>
  typeof body === 'object' &&
  body !== null &&
  typeof (body as ApiErrorBody).code === 'string' &&
  typeof (body as ApiErrorBody).error === 'string' &&
  typeof (body as ApiErrorBody).details === 'object';
