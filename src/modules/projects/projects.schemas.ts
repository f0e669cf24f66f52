import { Type } from '@sinclair/typebox';
import { DateString, Nullable, PageInfoSchema, PaginationQuery } from '../../operations/schema-helpers.js';

export const ProjectSchema = Type.Object({
  projectId: Type.String(), projectKey: Type.String(), name: Type.String(), description: Nullable(Type.String()),
  teamId: Type.String(), teamKey: Type.String(), ownerId: Nullable(Type.String()),
  startDate: Nullable(Type.String()), endDate: Nullable(Type.String()),
  subtasksEnabled: Type.Boolean(), issueContainersEnabled: Type.Boolean(), createdAt: Type.String(), updatedAt: Type.String(),
});

const projectFields = {
  name: Type.String({ description: 'Required on create (NAME_REQUIRED).' }),
  description: Nullable(Type.String({ maxLength: 10_000 })),
  teamId: Type.String(),
  teamKey: Type.String({ description: 'Default team when no team is given.' }),
  projectKey: Type.String({ description: '2–10 characters ^[A-Z][A-Z0-9]+$, upper-cased; derived from the name when omitted.' }),
  ownerId: Nullable(Type.String({ description: 'usr_… or api-token:<name>; defaults to the caller when human.' })),
  startDate: Nullable(DateString()),
  endDate: Nullable(DateString('YYYY-MM-DD, on or after startDate.')),
  subtasksEnabled: Type.Boolean(),
  issueContainersEnabled: Type.Boolean(),
};

export const CreateProjectBody = Type.Partial(Type.Object(projectFields));
export const UpdateProjectBody = Type.Partial(Type.Object(projectFields));
export const projectFieldCodes = { name: 'NAME_REQUIRED', startDate: 'INVALID_PROJECT_WINDOW', endDate: 'INVALID_PROJECT_WINDOW', ownerId: 'OWNER_NOT_IN_WORKSPACE' } as const;

/** The project and team filters of the issue, container and milestone lists (project-scope.ts). */
export const ProjectScopeQueryFields = {
  project: Type.Optional(Type.String({ description: 'projectId or projectKey (add team when the key is used in several teams).' })),
  team: Type.Optional(Type.String({ description: 'teamId or teamKey.' })),
  projectId: Type.Optional(Type.String()),
  projectKey: Type.Optional(Type.String({ description: 'Add teamId or teamKey when the key is used in several teams.' })),
  teamId: Type.Optional(Type.String()),
  teamKey: Type.Optional(Type.String()),
};

export const ListProjectsQuery = Type.Object({ teamId: Type.Optional(Type.String()), teamKey: Type.Optional(Type.String()), ...PaginationQuery });
export const ProjectIdParams = Type.Object({ projectId: Type.String() });
export const ProjectKeyParams = Type.Object({ teamKey: Type.String(), projectKey: Type.String() });
export const ProjectResponse = Type.Object({ project: ProjectSchema });
export const ProjectListResponse = Type.Object({ projects: Type.Array(ProjectSchema), pageInfo: PageInfoSchema });
