import { Type } from '@sinclair/typebox';
import type { ErrorCode } from '../../core/errors.js';
import { Nullable, Ref, serviceCheck } from '../../operations/schema-helpers.js';
import { WORK_TARGET_TYPES } from './work-links.service.js';

export const WorkLinkSchema = Type.Object({
  linkId: Type.String(),
  targetType: Type.String({ description: 'issue | project | discussion_topic | agenda_item' }),
  targetId: Type.String(),
  targetKey: Nullable(Type.String({ description: 'issueKey or projectKey; null for other targets.' })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

/** The service checks the target; a wrong JSON type answers the same codes (workLinkFieldCodes). */
export const WorkLinkBody = Type.Object({
  targetType: Type.Optional(
    serviceCheck(Ref('issue | project | discussion_topic | agenda_item'), { enum: WORK_TARGET_TYPES }),
  ),
  targetId: Type.Optional(Ref('Id of the target.')),
  targetKey: Type.Optional(Ref('issueKey or projectKey (issue and project targets only).')),
  teamKey: Type.Optional(Ref('Disambiguates a project targetKey.')),
});
export const workLinkFieldCodes: Record<string, ErrorCode> = {
  targetType: 'INVALID_TARGET_TYPE',
  targetId: 'TARGET_REQUIRED',
  targetKey: 'TARGET_REQUIRED',
};

export const WorkLinkResponse = Type.Object({ link: WorkLinkSchema });
