import type { Operation } from '../../operations/define.js';
import { conversionOperations } from './conversion.operations.js';
import { groupOperations } from './groups.operations.js';
import { topicOperations } from './topics.operations.js';

/** Stakeholder discussions: groups, topics, and topic conversion to issues. */
export const discussionsOperations: Operation[] = [...groupOperations, ...topicOperations, ...conversionOperations];
