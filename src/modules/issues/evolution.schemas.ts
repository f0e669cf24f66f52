import { Type } from '@sinclair/typebox';
import type { ErrorCode } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { Nullable, overLimitCode, Text, Title } from '../../operations/schema-helpers.js';
import { IssueSchema } from './issues.schemas.js';

export const EvolutionSchema = Type.Object({
  evolutionId: Type.String(),
  issueId: Type.String(),
  priorTitle: Type.String(),
  newTitle: Type.String(),
  reason: Nullable(Type.String()),
  actorId: Type.String(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const EvolveBody = Type.Partial(
  Type.Object({
    // These limits have their own code, INVALID_ISSUE_EVOLUTION (docs/api.md, "Errors").
    title: overLimitCode(
      Title('Required: the new title, 1–500 characters, different from the current one.'),
      'INVALID_ISSUE_EVOLUTION',
    ),
    reason: Nullable(
      overLimitCode(Text('Optional, at most 2,000 characters.', LIMITS.evolutionReason), 'INVALID_ISSUE_EVOLUTION'),
    ),
  }),
);
export const evolveFieldCodes: Record<string, ErrorCode> = {
  title: 'INVALID_ISSUE_EVOLUTION',
  reason: 'INVALID_ISSUE_EVOLUTION',
};

export const EvolveResponse = Type.Object({ evolution: EvolutionSchema, issue: IssueSchema });
export const EvolutionListResponse = Type.Object({ evolutions: Type.Array(EvolutionSchema) });
