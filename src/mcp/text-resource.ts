import { ProtocolError, ProtocolErrorCode, type ResourceLink } from '@modelcontextprotocol/server';
import { isReadOperation } from '../modules/auth/index.js';
import type { Cut } from './budget.js';
import { textAt } from './budget.js';

/**
 * The whole of a text a tool result cut (budget.ts), as an MCP resource. The server keeps
 * nothing between requests, so the link says how to read the text again: the read tool,
 * its arguments and the text's path in its answer (`wsx:text?tool=get_issue&arguments=
 * {"issueId":"ENG-1"}&path=issue.description`). Reading it runs that tool as the reader,
 * with the reader's own credential and tools: a link grants nothing.
 */

const SCHEME = 'wsx:';
const PATHNAME = 'text';
/** Longer than any link this server makes (a read's arguments are ids, filters and a cursor). */
const MAX_URI_LENGTH = 4_000;

export function textLink(tool: string, args: Record<string, unknown>, cut: Cut): ResourceLink {
  const query = new URLSearchParams({ tool, arguments: JSON.stringify(args), path: cut.path });
  return {
    type: 'resource_link',
    uri: `${SCHEME}${PATHNAME}?${query.toString()}`,
    name: cut.path,
    mimeType: 'text/plain',
    description: `The whole of ${cut.path}: ${cut.total} characters, ${cut.shown} shown above.`,
  };
}

/** What a text link names, or a protocol error (Invalid params) saying what is wrong with it. */
export function parseTextLink(uri: string): { tool: string; args: Record<string, unknown>; path: string } {
  const invalid = (reason: string) =>
    new ProtocolError(ProtocolErrorCode.InvalidParams, `${reason}: ${uri.slice(0, 200)}`);
  if (uri.length > MAX_URI_LENGTH) throw invalid(`A text link is at most ${MAX_URI_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw invalid('Not a URI');
  }
  if (url.protocol !== SCHEME || url.pathname !== PATHNAME) throw invalid('Not a text link of this server');
  const tool = url.searchParams.get('tool');
  const path = url.searchParams.get('path');
  let args: unknown;
  try {
    args = JSON.parse(url.searchParams.get('arguments') ?? '');
  } catch {
    throw invalid('The link has no JSON arguments');
  }
  if (!tool || !path || typeof args !== 'object' || args === null || Array.isArray(args))
    throw invalid('The link needs tool, arguments (a JSON object) and path');
  return { tool, args: args as Record<string, unknown>, path };
}

/** Only read tools can be named by a link: reading a resource changes nothing. */
export const readableBy = (op: Parameters<typeof isReadOperation>[0]): boolean => isReadOperation(op);

/** The text at the link's path in a tool's answer, or a protocol error when it is not there. */
export function textOf(body: unknown, uri: string, path: string): string {
  const text = textAt(body, path);
  if (text === undefined)
    throw new ProtocolError(
      ProtocolErrorCode.ResourceNotFound,
      `No text at ${path} in that answer: ${uri.slice(0, 200)}`,
    );
  return text;
}
