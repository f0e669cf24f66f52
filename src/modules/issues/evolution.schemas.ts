import { Type } from '@sinclair/typebox';
import type { ErrorCode } from '../../core/errors.js';
import { Nullable } from '../../operations/schema-helpers.js';
import { IssueSchema } from './issues.schemas.js';

export const EvolutionSchema = Type.Object({
  evolutionId: Type.String(), issueId: Type.String(), priorTitle: Type.String(), newTitle: Type.String(),
  reason: Nullable(Type.String()), actorId: Type.String(), createdAt: Type.String(), updatedAt: Type.String(),
});

export const EvolveBody = Type.Partial(Type.Object({
  title: Type.String({ description: 'Required: the new title, 1–500 characters, different from the current one.' }),
  reason: Nullable(Type.String({ description: 'Optional, at most 2,000 characters.' })),
}));
export const evolveFieldCodes: Record<string, ErrorCode> = { title: 'INVALID_ISSUE_EVOLUTION', reason: 'INVALID_ISSUE_EVOLUTION' };

export const EvolveResponse = Type.Object({ evolution: EvolutionSchema, issue: IssueSchema });
export const EvolutionListResponse = Type.Object({ evolutions: Type.Array(EvolutionSchema) });
