import type { Operation } from '../operations/define.js';
import { withFieldSelection } from './field-selection.js';
import { discoveryOperations } from '../modules/discovery/discovery.operations.js';
import { discussionsOperations } from '../modules/discussions/discussions.operations.js';
import { eventsOperations } from '../modules/events/events.operations.js';
import { issuesOperations } from '../modules/issues/issues.operations.js';
import { meetingsOperations } from '../modules/meetings/meetings.operations.js';
import { planningOperations } from '../modules/planning/planning.operations.js';
import { projectOperations } from '../modules/projects/projects.operations.js';
import { webhooksOperations } from '../modules/webhooks/webhooks.operations.js';

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
