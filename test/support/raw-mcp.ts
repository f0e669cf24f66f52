import { TOKENS } from './fixtures.js';
import type { Harness } from './harness.js';

/** JSON-RPC on /api/mcp as raw text, for tests of what the MCP door makes of messages exactly as sent. */

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/**
 * Posts raw JSON text, so keys such as "__proto__" arrive exactly as an attacker writes them;
 * `url` may pick toolsets (`/api/mcp?toolsets=all`).
 */
export async function postMcp(h: Harness, text: string, token = TOKENS.admin, url = '/api/mcp') {
  const reply = await h.app.inject({
    method: 'POST',
    url,
    payload: text,
    headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
  });
  return { status: reply.statusCode, headers: reply.headers, body: reply.body ? JSON.parse(reply.body) : undefined };
}

/** One tools/call message as JSON text, with its arguments as written. */
export const toolCall = (id: number, name: string, argumentsJson: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${argumentsJson}}}`;
