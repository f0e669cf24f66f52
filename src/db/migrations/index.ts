import type { Kysely, Migration } from 'kysely';
import * as core from './0001_core.js';
import * as issues from './0002_issues.js';
import * as planning from './0003_planning.js';
import * as meetings from './0004_meetings.js';
import * as discussions from './0005_discussions.js';
import * as webhooks from './0006_webhooks.js';
import * as webhookTrust from './0007_webhook_trust.js';
import * as credentialExpiry from './0008_credential_expiry.js';
import * as installationSecret from './0009_installation_secret.js';
import * as idempotencyHolder from './0010_idempotency_holder.js';
import * as textSearch from './0011_text_search.js';
import * as versions from './0012_versions.js';
import * as changeFeed from './0013_change_feed.js';
import * as syncIndexes from './0014_sync_indexes.js';
import * as credentialAccess from './0015_credential_access.js';
import * as webhookRotation from './0016_webhook_rotation.js';
import * as oauth from './0017_oauth.js';
import * as browserSessions from './0018_browser_sessions.js';
import * as backgroundLease from './0019_background_lease.js';
import * as searchStatistics from './0020_search_statistics.js';
import * as searchBacklog from './0021_search_backlog.js';
import * as sparseIssueIndexes from './0022_sparse_issue_indexes.js';
import * as outboxTimeIndex from './0023_outbox_time_index.js';
import * as foreignKeys from './0024_foreign_keys.js';
import * as searchScope from './0025_search_scope.js';
import * as userDeactivation from './0026_user_deactivation.js';
import * as webhookThroughput from './0027_webhook_throughput.js';
import * as traceContext from './0028_trace_context.js';
import * as issueLinkCounts from './0029_issue_link_counts.js';
import * as deleteRules from './0030_delete_rules.js';

/**
 * A migration, and what it needs done once it has committed: every pending migration runs
 * in one transaction (db/migrate.ts), and some work (PostgreSQL's ANALYZE at a statistics
 * target set in that transaction) only takes effect outside it.
 */
export interface CatalogMigration extends Migration {
  afterCommit?: (db: Kysely<unknown>) => Promise<void>;
}

/** Every migration, by name; names sort in the order they must run. */
export const migrations: Record<string, CatalogMigration> = {
  '0001_core': core,
  '0002_issues': issues,
  '0003_planning': planning,
  '0004_meetings': meetings,
  '0005_discussions': discussions,
  '0006_webhooks': webhooks,
  '0007_webhook_trust': webhookTrust,
  '0008_credential_expiry': credentialExpiry,
  '0009_installation_secret': installationSecret,
  '0010_idempotency_holder': idempotencyHolder,
  '0011_text_search': textSearch,
  '0012_versions': versions,
  '0013_change_feed': changeFeed,
  '0014_sync_indexes': syncIndexes,
  '0015_credential_access': credentialAccess,
  '0016_webhook_rotation': webhookRotation,
  '0017_oauth': oauth,
  '0018_browser_sessions': browserSessions,
  '0019_background_lease': backgroundLease,
  '0020_search_statistics': searchStatistics,
  '0021_search_backlog': searchBacklog,
  '0022_sparse_issue_indexes': sparseIssueIndexes,
  '0023_outbox_time_index': outboxTimeIndex,
  '0024_foreign_keys': foreignKeys,
  '0025_search_scope': searchScope,
  '0026_user_deactivation': userDeactivation,
  '0027_webhook_throughput': webhookThroughput,
  '0028_trace_context': traceContext,
  '0029_issue_link_counts': issueLinkCounts,
  '0030_delete_rules': deleteRules,
};
