/** Row types of the discussions area's own tables (see its migration). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DiscussionsTables {}
