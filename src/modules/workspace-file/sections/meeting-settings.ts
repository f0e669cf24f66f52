import { convergeAgendaStatuses, convergePresets, EMAIL_PATTERN, type PresetSpec } from '../../meetings/index.js';
import { at, optionalString, readEntries, readObject, requiredString, type EntryFormat } from '../fields.js';
import { defineSection } from './section.js';

export interface MeetingSettingsSpec {
  agendaStatuses: string[];
  externalOwnerPresets: PresetSpec[];
}

/** An agenda status entry is `{ name }`; the spec keeps the name alone. */
const agendaStatusEntry: EntryFormat<string> = {
  keys: ['name'],
  read: (status, where) => requiredString(status, 'name', where, { max: 100 }),
  unique: { identity: (name) => name.toLowerCase(), what: 'agenda status' },
};

const presetEntry: EntryFormat<PresetSpec> = {
  keys: ['name', 'externalName', 'externalEmail'],
  read: (preset, where) => ({
    name: requiredString(preset, 'name', where, { max: 200 }),
    externalName: optionalString(preset, 'externalName', where, { max: 200 }),
    externalEmail: optionalString(preset, 'externalEmail', where, { pattern: EMAIL_PATTERN, max: 320 }),
  }),
  unique: { identity: (preset) => preset.name, what: 'preset name' },
};

function parseMeetingSettings(raw: unknown, path: string): MeetingSettingsSpec {
  const fields = readObject(raw, path, ['agendaStatuses', 'externalOwnerPresets']);
  const agendaStatuses =
    fields.agendaStatuses == null
      ? []
      : readEntries(fields.agendaStatuses, at(path, 'agendaStatuses'), agendaStatusEntry);
  const externalOwnerPresets =
    fields.externalOwnerPresets == null
      ? []
      : readEntries(fields.externalOwnerPresets, at(path, 'externalOwnerPresets'), presetEntry);
  return { agendaStatuses, externalOwnerPresets };
}

/**
 * Agenda statuses (custom ones after the system ones) matched by name case-insensitively,
 * and external owner presets matched by name. Runs for every file, so every workspace gets
 * its system statuses; the result lists every status, system ones included.
 */
export const meetingSettingsSection = defineSection<MeetingSettingsSpec>({
  key: 'meetingSettings',
  parse: parseMeetingSettings,
  async apply(trx, ws, settings, result) {
    result.agendaStatuses = await convergeAgendaStatuses(trx, ws.id, ws.now, settings?.agendaStatuses ?? []);
    result.externalOwnerPresets = await convergePresets(trx, ws.id, ws.now, settings?.externalOwnerPresets ?? []);
  },
});
