import { Type } from '@sinclair/typebox';
import { created, defineOperation, noContent, ok, type Operation } from '../../operations/define.js';
import { NonBlank, Ref, serviceCheck } from '../../operations/schema-helpers.js';
import type { ErrorCode } from '../../core/errors.js';
import { IssueIdParams, LinkSchema } from './issues.schemas.js';
import { LINK_TYPES } from './links.presenter.js';
import { createIssueLink, deleteIssueLink } from './links.service.js';

const tag = 'Issues';
const mcpAliases = { issueKey: 'issueId' };

const CreateLinkBody = Type.Partial(
  Type.Object({
    type: serviceCheck(Ref('blocks, blocked_by or related (INVALID_ISSUE_LINK_TYPE).'), { enum: LINK_TYPES }),
    targetIssueId: Ref('The other issue; or send targetIssueKey.'),
    targetIssueKey: Ref(),
  }),
);
const linkFieldCodes: Record<string, ErrorCode> = {
  type: 'INVALID_ISSUE_LINK_TYPE',
  targetIssueId: 'TARGET_ISSUE_REQUIRED',
  targetIssueKey: 'TARGET_ISSUE_REQUIRED',
};
const DeleteLinkBody = Type.Partial(Type.Object({ linkId: NonBlank(Ref('Required (ISSUE_LINK_ID_REQUIRED).')) }));

export const linkOperations: Operation[] = [
  defineOperation({
    id: 'link_issues',
    method: 'POST',
    path: '/api/external/issues/{issueId}/links',
    tag,
    mcpAliases,
    summary: 'Link the issue to another one; the inverse link appears on the target. An existing link answers 200.',
    params: IssueIdParams,
    body: CreateLinkBody,
    errors: ['ISSUE_LINK_SELF_REFERENCE', 'TARGET_ISSUE_NOT_FOUND'],
    answersExisting: true,
    requiredFields: ['type'],
    fieldCodes: linkFieldCodes,
    response: Type.Object({ link: LinkSchema }),
    successStatus: 201,
    run: async (ctx, { params, body }) => {
      const { link, created: isNew } = await createIssueLink(ctx, params.issueId, body);
      return isNew ? created({ link }) : ok({ link });
    },
  }),
  defineOperation({
    id: 'unlink_issues',
    method: 'DELETE',
    path: '/api/external/issues/{issueId}/links',
    tag,
    mcpAliases,
    summary: 'Remove a link (body { linkId }) and its inverse on the other issue.',
    params: IssueIdParams,
    body: DeleteLinkBody,
    errors: ['ISSUE_LINK_NOT_FOUND'],
    requiredFields: ['linkId'],
    fieldCodes: { linkId: 'ISSUE_LINK_ID_REQUIRED' },
    successStatus: 204,
    run: async (ctx, { params, body }) => {
      await deleteIssueLink(ctx, params.issueId, body);
      return noContent();
    },
  }),
];
