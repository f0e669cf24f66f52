import { created, defineOperation, ok, type Operation } from '../../operations/define.js';
import { EvolutionListResponse, EvolveBody, EvolveResponse, evolveFieldCodes } from './evolution.schemas.js';
import { evolveIssueTitle, listIssueEvolutions } from './evolution.service.js';
import { IssueIdParams } from './issues.schemas.js';

const tag = 'Issues';
const mcpAliases = { issueKey: 'issueId' };

export const evolutionOperations: Operation[] = [
  defineOperation({
    id: 'list_issue_evolutions',
    method: 'GET',
    path: '/api/external/issues/{issueId}/evolve',
    tag,
    mcpAliases,
    summary: "The issue's title evolution events, oldest first.",
    params: IssueIdParams,
    response: EvolutionListResponse,
    run: async (ctx, { params }) => ok(await listIssueEvolutions(ctx, params.issueId)),
  }),
  defineOperation({
    id: 'evolve_issue_title',
    method: 'POST',
    path: '/api/external/issues/{issueId}/evolve',
    tag,
    mcpAliases,
    // The current title is replaced (the evolution keeps the prior one).
    mcpHints: { destructive: true },
    summary: 'Retitle an issue and keep the change (prior title, new title, reason) as an immutable evolution event.',
    params: IssueIdParams,
    body: EvolveBody,
    requiredFields: ['title'],
    fieldCodes: evolveFieldCodes,
    response: EvolveResponse,
    successStatus: 201,
    run: async (ctx, { params, body }) => created(await evolveIssueTitle(ctx, params.issueId, body)),
  }),
];
