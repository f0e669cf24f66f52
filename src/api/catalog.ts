import type { Operation } from '../operations/define.js';
import { withFieldSelection } from './field-selection.js';
import { discoveryOperations } from '../modules/discovery/index.js';
import { discussionsOperations } from '../modules/discussions/index.js';
import { eventsOperations } from '../modules/feed/index.js';
import { issuesOperations } from '../modules/issues/index.js';
import { meetingsOperations } from '../modules/meetings/index.js';
import { planningOperations } from '../modules/planning/index.js';
import { projectOperations } from '../modules/projects/index.js';
import { webhooksOperations } from '../modules/webhooks/index.js';

/**
 * Every endpoint of the API, in reference order. Doors (HTTP, MCP, OpenAPI) read only this.
 * Reads of records take `fields=` (api/field-selection.ts).
 */
export const catalog: Operation[] = [
  ...discoveryOperations,
  ...projectOperations,
  ...issuesOperations,
  ...planningOperations,
  ...meetingsOperations,
  ...discussionsOperations,
  ...webhooksOperations,
  ...eventsOperations,
].map(withFieldSelection);
