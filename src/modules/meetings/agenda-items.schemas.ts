import { Type } from '@sinclair/typebox';
import {
  DateString,
  Description,
  LabelList,
  Nullable,
  PathParam,
  Ref,
  TagList,
  Text,
  Title,
  Version,
} from '../../operations/schema-helpers.js';
import { AttachmentSchema } from '../issues/index.js';
import { OwnerSchema } from './owners.schemas.js';
import { WorkLinkSchema } from '../work-links/index.js';

export const AgendaItemSchema = Type.Object({
  agendaItemId: Type.String(),
  meetingId: Type.String(),
  title: Type.String(),
  description: Nullable(Type.String()),
  notes: Nullable(Type.String()),
  agendaGroupId: Nullable(Type.String()),
  statusId: Type.String(),
  tags: Type.Array(Type.String()),
  labels: Type.Array(Type.String()),
  sourceProjectId: Nullable(Type.String()),
  checkInDate: Nullable(Type.String()),
  owners: Type.Array(OwnerSchema),
  links: Type.Array(WorkLinkSchema),
  attachments: Type.Array(AttachmentSchema),
  converted: Type.Boolean(),
  convertedIssueId: Nullable(Type.String()),
  taskIssueIds: Type.Array(Type.String()),
  position: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  version: Version(),
});

const itemFields = {
  title: Title(
    'Non-empty (AGENDA_ITEM_TITLE_REQUIRED), at most 500 characters: it becomes the title of an issue made from the item.',
  ),
  description: Nullable(Description()),
  notes: Nullable(Text()),
  agendaGroupId: Nullable(Ref('A group of this meeting; null ungroups.')),
  statusId: Ref('An agenda status id; default "To discuss".'),
  tags: TagList,
  labels: LabelList,
  sourceProjectId: Nullable(
    Ref("Project the tags count for; omitted with tags = the meeting's project, null = agenda-only."),
  ),
  checkInDate: Nullable(DateString()),
};

export const CreateAgendaItemBody = Type.Partial(Type.Object(itemFields));
export const UpdateAgendaItemBody = Type.Partial(
  Type.Object({
    ...itemFields,
    position: Type.Integer({
      minimum: 0,
      description: '0-based index inside its group, or among the ungrouped items.',
    }),
  }),
);
export const agendaItemFieldCodes = {
  title: 'AGENDA_ITEM_TITLE_REQUIRED',
  checkInDate: 'INVALID_MEETING_TIME',
  statusId: 'AGENDA_STATUS_NOT_FOUND',
  agendaGroupId: 'AGENDA_GROUP_NOT_FOUND',
} as const;

export const AgendaItemParams = Type.Object({ meetingId: PathParam(), agendaItemId: PathParam() });
export const AgendaItemResponse = Type.Object({ agendaItem: AgendaItemSchema });
export const AgendaItemListResponse = Type.Object({ agendaItems: Type.Array(AgendaItemSchema) });

export const AgendaTagsResponse = Type.Object({
  tags: Type.Array(
    Type.Object({ name: Type.String(), sources: Type.Array(Type.String()), usageCount: Type.Integer() }),
  ),
});
