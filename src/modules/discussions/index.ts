/**
 * The discussions module's public entry: what other modules, the API catalog, the doors and the
 * CLI use. Files inside the module import each other directly, never this file.
 */
export { discussionsOperations } from './discussions.operations.js';
export { countDiscussionTopicTagUsage } from './topic-tag-usage.service.js';
export { TopicSchema } from './topics.schemas.js';

/** Each schemas file whole: the OpenAPI document names its exported schemas (api/openapi/component-names.ts). */
export * as conversionSchemas from './conversion.schemas.js';
export * as groupSchemas from './groups.schemas.js';
export * as topicSchemas from './topics.schemas.js';
