import { Type } from '@sinclair/typebox';
import { Nullable } from '../../operations/schema-helpers.js';

export const WorkLinkSchema = Type.Object({
  linkId: Type.String(),
  targetType: Type.String({ description: 'issue | project | discussion_topic | agenda_item' }),
  targetId: Type.String(),
  targetKey: Nullable(Type.String({ description: 'issueKey or projectKey; null for other targets.' })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

/** Loosely typed so every bad value answers the field's own code (INVALID_TARGET_TYPE, TARGET_REQUIRED). */
export const WorkLinkBody = Type.Object({
  targetType: Type.Optional(Type.Unknown({ description: 'issue | project | discussion_topic | agenda_item' })),
  targetId: Type.Optional(Type.Unknown({ description: 'Id of the target.' })),
  targetKey: Type.Optional(Type.Unknown({ description: 'issueKey or projectKey (issue and project targets only).' })),
  teamKey: Type.Optional(Type.String({ description: 'Disambiguates a project targetKey.' })),
});

export const WorkLinkResponse = Type.Object({ link: WorkLinkSchema });
