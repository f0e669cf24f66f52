/** Row types of the issues area's own tables (see migration 0002_issues). */

/** One side of an issue relationship; its inverse is a row of its own on the target. */
export interface IssueLinkRow {
  id: string;
  workspace_id: string;
  issue_id: string;
  target_issue_id: string;
  /** blocks | blocked_by | related */
  type: string;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** An immutable title change. */
export interface IssueEvolutionRow {
  id: string;
  workspace_id: string;
  issue_id: string;
  prior_title: string;
  new_title: string;
  reason: string | null;
  actor_id: string;
  created_at: string;
}

/** A comment on an issue or on a container milestone (exactly one owner column is set). */
export interface CommentRow {
  id: string;
  workspace_id: string;
  issue_id: string | null;
  milestone_id: string | null;
  parent_comment_id: string | null;
  /** null once the comment is a tombstone */
  body: string | null;
  author_id: string;
  author_token_name: string | null;
  deleted: number;
  created_at: string;
  updated_at: string;
}

/** A link-backed attachment of an issue or an agenda item (exactly one owner column is set). */
export interface AttachmentRow {
  id: string;
  workspace_id: string;
  issue_id: string | null;
  agenda_item_id: string | null;
  url: string;
  name: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface IssuesTables {
  issue_links: IssueLinkRow;
  issue_evolutions: IssueEvolutionRow;
  comments: CommentRow;
  attachments: AttachmentRow;
}
