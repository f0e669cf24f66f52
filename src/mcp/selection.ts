import { ApiError } from '../core/errors.js';
import { isReadOperation } from '../modules/auth/index.js';
import type { McpTool, ToolDefinition } from './tools.js';
import { DEFAULT_TOOLSET, inToolset, TOOLSET_NAMES } from './toolsets.js';

/**
 * The tools one `/api/mcp` request sees, from its query string (`toolsets`, `readonly`)
 * and its credential. Lists are built once per distinct selection and kept: there are few
 * (each is a subset of the toolset names plus two flags).
 */

export interface Selection {
  /** Toolset names, each once, sorted: equal selections have equal keys. */
  toolsets: string[];
  /** Only read tools are listed and callable. */
  readonly: boolean;
  /** The credential may only read: its write calls answer TOKEN_READ_ONLY, not "unknown tool". */
  readOnlyCredential: boolean;
}

export interface ToolSelection {
  /** What tools/list answers. */
  definitions: ToolDefinition[];
  /** What tools/call finds by name. */
  callable: Map<string, McpTool>;
}

const QUERY_PARAMETERS = ['toolsets', 'readonly'];
const READONLY_VALUES = ['true', 'false'];
/** Longer than the list of every toolset name; a bound like any other input. */
const MAX_TOOLSETS_LENGTH = 200;

/** One value of a query parameter: a repeated one (`?toolsets=a&toolsets=b`) reads as the list of both. */
const textOf = (value: unknown): string => (Array.isArray(value) ? value.join(',') : String(value));

function parseToolsets(value: unknown): string[] {
  if (value === undefined) return [DEFAULT_TOOLSET];
  const text = textOf(value);
  if (text.length > MAX_TOOLSETS_LENGTH)
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'toolsets', max: MAX_TOOLSETS_LENGTH },
      { message: `toolsets takes at most ${MAX_TOOLSETS_LENGTH} characters.` },
    );
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !TOOLSET_NAMES.includes(name));
  if (unknown.length > 0)
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'toolsets', allowed: [...TOOLSET_NAMES] },
      {
        message: `Unknown toolset(s): ${unknown.map((name) => JSON.stringify(name)).join(', ')}.`,
        suggestion: `Name toolsets from details.allowed, separated by commas, e.g. ?toolsets=issues,planning.`,
      },
    );
  return [...new Set(names)].sort();
}

function parseReadonly(value: unknown): boolean {
  if (value === undefined) return false;
  const text = textOf(value);
  if (!READONLY_VALUES.includes(text))
    throw new ApiError(
      'VALIDATION_FAILED',
      { field: 'readonly', allowed: READONLY_VALUES },
      { message: 'readonly must be true or false.' },
    );
  return text === 'true';
}

/** The selection a request asks for; VALIDATION_FAILED for an unknown parameter, toolset or readonly value. */
export function parseSelection(query: unknown, readOnlyCredential: boolean): Selection {
  const params = typeof query === 'object' && query !== null ? (query as Record<string, unknown>) : {};
  const unknownFields = Object.keys(params).filter((name) => !QUERY_PARAMETERS.includes(name));
  if (unknownFields.length > 0)
    throw new ApiError(
      'VALIDATION_FAILED',
      { unknownFields, allowed: QUERY_PARAMETERS },
      { message: `Unknown query parameter(s) on /api/mcp: ${unknownFields.join(', ')}.` },
    );
  const toolsets = parseToolsets(params.toolsets);
  // A read-only credential is served as readonly=true, whatever it asked for.
  const readonly = parseReadonly(params.readonly) || readOnlyCredential;
  return { toolsets, readonly, readOnlyCredential };
}

/** Builds each selection's tool lists once. */
export function toolSelector(tools: McpTool[]): (selection: Selection) => ToolSelection {
  const built = new Map<string, ToolSelection>();
  return (selection) => {
    const key = `${selection.toolsets.join(',')}|${selection.readonly}|${selection.readOnlyCredential}`;
    let found = built.get(key);
    if (!found) {
      const listed = tools.filter(
        (tool) =>
          selection.toolsets.some((toolset) => inToolset(toolset, tool.op)) &&
          (!selection.readonly || isReadOperation(tool.op)),
      );
      // A read-only credential calling a write tool learns why it cannot (TOKEN_READ_ONLY,
      // answered by callTool before anything else), rather than that the tool is unknown.
      const refused = selection.readOnlyCredential ? tools.filter((tool) => !isReadOperation(tool.op)) : [];
      found = {
        definitions: listed.map((tool) => tool.definition),
        callable: new Map([...refused, ...listed].map((tool) => [tool.definition.name, tool])),
      };
      built.set(key, found);
    }
    return found;
  };
}
