import { isApiError } from '../../../core/errors.js';
import { isHttpUrl } from '../../../core/values.js';
import { isWebhookSecret } from '../../../events/signer.js';
import { checkEventFilter, convergeFileWebhooks, WEBHOOK_LIMIT, type FileWebhookSpec } from '../../webhooks/index.js';
import { fail } from '../errors.js';
import {
  at,
  optionalBoolean,
  optionalString,
  readEntries,
  readList,
  requiredString,
  type EntryFormat,
} from '../fields.js';
import { defineListSection } from './section.js';

/**
 * Webhook subscriptions declared by the operator, matched by URL. They see every project
 * of the workspace. The receiver's address is checked when each delivery is made (the
 * operator may run receivers on a private network with WSX_WEBHOOK_ALLOW_PRIVATE=1).
 * They count towards the workspace's cap of 25 subscriptions like any other.
 */

const webhookEntry: EntryFormat<FileWebhookSpec> = {
  keys: ['url', 'events', 'secret', 'active'],
  read(fields, where) {
    const url = requiredString(fields, 'url', where);
    if (!isHttpUrl(url)) fail(at(where, 'url'), 'must be an absolute http or https URL of at most 2,048 characters');
    const events = checkEventFilter(fields.events);
    if (!events.ok)
      fail(events.index === null ? at(where, 'events') : at(at(where, 'events'), events.index), events.problem);
    const secret = optionalString(fields, 'secret', where);
    if (secret !== undefined && !isWebhookSecret(secret))
      fail(at(where, 'secret'), 'must be whsec_ followed by base64 of 24 to 64 bytes');
    return { url, events: events.events, secret, active: optionalBoolean(fields, 'active', where) };
  },
  unique: { identity: (webhook) => webhook.url, what: 'webhook url' },
};

function parseWebhooks(raw: unknown, path: string): FileWebhookSpec[] {
  const list = readList(raw, path);
  if (list.length > WEBHOOK_LIMIT)
    fail(path, `at most ${WEBHOOK_LIMIT} webhook subscriptions per workspace (the file lists ${list.length})`);
  return readEntries(list, path, webhookEntry);
}

export const webhooksSection = defineListSection<FileWebhookSpec>({
  key: 'webhooks',
  parse: parseWebhooks,
  async apply(trx, ws, webhooks, result) {
    try {
      Object.assign(result.webhooks, await convergeFileWebhooks(trx, ws.id, ws.now, webhooks));
    } catch (error) {
      if (!isApiError(error) || error.code !== 'WEBHOOK_LIMIT_REACHED') throw error;
      const { index, existing } = error.details as { index: number; existing: number };
      fail(
        at('webhooks', index),
        `the workspace already has ${existing} webhook subscriptions, the most it may have is ${WEBHOOK_LIMIT}; ` +
          'delete one (DELETE /api/external/webhooks/{webhookId}) or leave this entry out',
      );
    }
  },
});
