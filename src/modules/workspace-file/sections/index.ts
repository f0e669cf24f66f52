import { discussionGroupsSection } from './discussion-groups.js';
import { meetingSettingsSection } from './meeting-settings.js';
import { oauthTokensSection } from './oauth-tokens.js';
import { projectsSection } from './projects.js';
import type { Section } from './section.js';
import { tagsSection } from './tags.js';
import { teamsSection } from './teams.js';
import { tokensSection } from './tokens.js';
import { usersSection } from './users.js';
import { webhooksSection } from './webhooks.js';

/**
 * Every section of the workspace file after `workspace`, in the order they are applied: a
 * section comes after those it refers to (teams name users, projects name teams and users,
 * tokens are granted projects, OAuth tokens belong to users). Adding a section is one file
 * exporting a `Section` and one entry here.
 */
export const SECTIONS: ReadonlyArray<Section<unknown>> = [
  usersSection,
  teamsSection,
  projectsSection,
  tagsSection,
  tokensSection,
  oauthTokensSection,
  discussionGroupsSection,
  meetingSettingsSection,
  webhooksSection,
];
