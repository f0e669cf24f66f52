import { created, defineOperation, ok, type Operation } from '../../operations/define.js';
import {
  CreateProjectBody,
  ListProjectsQuery,
  ProjectIdParams,
  ProjectKeyParams,
  ProjectListResponse,
  ProjectResponse,
  UpdateProjectBody,
  projectFieldCodes,
} from './projects.schemas.js';
import { createProject, getProject, getProjectByKey, listProjects, updateProjectById } from './projects.service.js';
import { defineResource } from '../../operations/versioned.js';

/** The versioned record its GET, PATCH and DELETE share (ETag, If-Match). */
const projectResource = defineResource({
  name: 'project',
  table: 'projects',
  idField: 'projectId',
  read: (ctx, params: { projectId: string }) => getProject(ctx, params.projectId),
});

const tag = 'Projects';

export const projectOperations: Operation[] = [
  defineOperation({
    id: 'list_projects',
    method: 'GET',
    path: '/api/external/projects',
    tag,
    summary: 'List the projects this credential can access, newest first, or oldest change first with sort=updatedAt.',
    query: ListProjectsQuery,
    errors: ['TEAM_NOT_FOUND'],
    response: ProjectListResponse,
    run: async (ctx, { query }) => ok(await listProjects(ctx, query)),
  }),
  defineOperation({
    id: 'get_project_by_key',
    resource: projectResource,
    method: 'GET',
    path: '/api/external/projects/by-key/{teamKey}/{projectKey}',
    tag,
    summary: 'One project by its team key and project key.',
    params: ProjectKeyParams,
    response: ProjectResponse,
    run: async (ctx, { params }) => ok({ project: await getProjectByKey(ctx, params.teamKey, params.projectKey) }),
  }),
  defineOperation({
    id: 'get_project',
    resource: projectResource,
    method: 'GET',
    path: '/api/external/projects/{projectId}',
    tag,
    summary: 'One project by id.',
    params: ProjectIdParams,
    response: ProjectResponse,
    run: async (ctx, { params }) => ok({ project: await getProject(ctx, params.projectId) }),
  }),
  defineOperation({
    id: 'create_project',
    method: 'POST',
    path: '/api/external/projects',
    tag,
    summary: 'Create a project; a token that creates a project is granted access to it.',
    body: CreateProjectBody,
    errors: ['NO_TEAM_AVAILABLE', 'PROJECT_KEY_CONFLICT', 'TEAM_NOT_FOUND'],
    requiredFields: ['name'],
    fieldCodes: projectFieldCodes,
    response: ProjectResponse,
    successStatus: 201,
    run: async (ctx, { body }) => created({ project: await createProject(ctx, body) }),
  }),
  defineOperation({
    id: 'update_project',
    resource: projectResource,
    method: 'PATCH',
    path: '/api/external/projects/{projectId}',
    tag,
    summary:
      'Update a project; null clears startDate, endDate, ownerId, description. A team move is refused while the project has issues.',
    params: ProjectIdParams,
    body: UpdateProjectBody,
    errors: ['PROJECT_KEY_CONFLICT', 'TEAM_CHANGE_BLOCKED', 'TEAM_NOT_FOUND', 'UNSUPPORTED_ACTION'],
    fieldCodes: projectFieldCodes,
    response: ProjectResponse,
    run: async (ctx, { params, body }) => ok({ project: await updateProjectById(ctx, params.projectId, body) }),
  }),
];
