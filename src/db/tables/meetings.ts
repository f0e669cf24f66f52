/** Row types of the meetings area's own tables (see its migration). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface MeetingsTables {}
