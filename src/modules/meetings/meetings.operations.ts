import type { Operation } from '../../operations/define.js';

export const meetingsOperations: Operation[] = [];
