import { Type } from '@sinclair/typebox';
import {
  alias,
  DateString,
  Description,
  NonBlank,
  Nullable,
  PageInfoSchema,
  PaginationQuery,
  PathParam,
  Ref,
  Text,
  Version,
} from '../../operations/schema-helpers.js';
import { ListOrderQueryFields } from '../../operations/list-order-query.js';

export const ProjectSchema = Type.Object({
  projectId: Type.String(),
  projectKey: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  teamId: Type.String(),
  teamKey: Type.String(),
  ownerId: Nullable(Type.String()),
  startDate: Nullable(Type.String()),
  endDate: Nullable(Type.String()),
  subtasksEnabled: Type.Boolean(),
  issueContainersEnabled: Type.Boolean(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  version: Version(),
});

const projectFields = {
  name: NonBlank(Text('Required on create (NAME_REQUIRED).')),
  description: Nullable(Description()),
  teamId: Ref(),
  teamKey: Ref('Default team when no team is given.'),
  projectKey: Ref('2–10 characters ^[A-Z][A-Z0-9]+$, upper-cased; derived from the name when omitted.'),
  ownerId: Nullable(Ref('usr_… or api-token:<name>; defaults to the caller when human.')),
  startDate: Nullable(DateString()),
  endDate: Nullable(DateString('YYYY-MM-DD, on or after startDate.')),
  subtasksEnabled: Type.Boolean(),
  issueContainersEnabled: Type.Boolean(),
};

export const CreateProjectBody = Type.Partial(Type.Object(projectFields));
export const UpdateProjectBody = Type.Partial(Type.Object(projectFields));
export const projectFieldCodes = {
  name: 'NAME_REQUIRED',
  startDate: 'INVALID_PROJECT_WINDOW',
  endDate: 'INVALID_PROJECT_WINDOW',
  ownerId: 'OWNER_NOT_IN_WORKSPACE',
} as const;

/** The project and team filters of the issue, container and milestone lists (project-scope.ts). */
export const ProjectScopeQueryFields = {
  project: Type.Optional(
    alias(Ref('projectId or projectKey (add team when the key is used in several teams).'), 'projectId or projectKey'),
  ),
  team: Type.Optional(alias(Ref('teamId or teamKey.'), 'teamId or teamKey')),
  projectId: Type.Optional(Ref()),
  projectKey: Type.Optional(Ref('Add teamId or teamKey when the key is used in several teams.')),
  teamId: Type.Optional(Ref()),
  teamKey: Type.Optional(Ref()),
};

export const ListProjectsQuery = Type.Object({
  teamId: Type.Optional(Ref()),
  teamKey: Type.Optional(Ref()),
  ...ListOrderQueryFields('projects'),
  ...PaginationQuery,
});
export const ProjectIdParams = Type.Object({ projectId: PathParam() });
export const ProjectKeyParams = Type.Object({ teamKey: PathParam(), projectKey: PathParam() });
export const ProjectResponse = Type.Object({ project: ProjectSchema });
export const ProjectListResponse = Type.Object({ projects: Type.Array(ProjectSchema), pageInfo: PageInfoSchema });
