import { Type } from '@sinclair/typebox';
import { Nullable, PageInfoSchema, PaginationQuery, SearchText } from '../../operations/schema-helpers.js';
import { ProjectScopeQueryFields } from '../projects/index.js';

export const IssueContainerSchema = Type.Object({
  issueContainerId: Type.String(),
  epicId: Type.String({ description: 'Legacy name of issueContainerId (same value).' }),
  name: Type.String(),
  projectId: Type.String(),
  projectKey: Type.String(),
  startDate: Nullable(Type.String()),
  dueDate: Nullable(Type.String()),
  issueCount: Type.Integer({ description: 'Active (not archived) issues in the container.' }),
  openIssueCount: Type.Integer({
    description: 'Active issues whose status is not in a completed or canceled category.',
  }),
  archived: Type.Boolean(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const ListContainersQuery = Type.Object({
  ...ProjectScopeQueryFields,
  q: SearchText('Case-insensitive text in the container name.'),
  archived: Type.Optional(
    Type.Boolean({ description: 'true lists only archived containers; default only active ones.' }),
  ),
  ...PaginationQuery,
});

export const ContainerListResponse = Type.Object({
  issueContainers: Type.Array(IssueContainerSchema),
  pageInfo: PageInfoSchema,
});
