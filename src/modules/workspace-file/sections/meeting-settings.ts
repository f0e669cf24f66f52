import { convergeAgendaStatuses, convergePresets, EMAIL_PATTERN, type PresetSpec } from '../../meetings/index.js';
import { at, optionalString, readList, readObject, refuseDuplicates, requiredString } from '../fields.js';
import { defineSection } from './section.js';

export interface MeetingSettingsSpec {
  agendaStatuses: string[];
  externalOwnerPresets: PresetSpec[];
}

function parseMeetingSettings(raw: unknown, path: string): MeetingSettingsSpec {
  const fields = readObject(raw, path, ['agendaStatuses', 'externalOwnerPresets']);
  const statusesPath = at(path, 'agendaStatuses');
  const agendaStatuses =
    fields.agendaStatuses == null
      ? []
      : readList(fields.agendaStatuses, statusesPath).map((item, index) => {
          const where = at(statusesPath, index);
          return requiredString(readObject(item, where, ['name']), 'name', where, { max: 100 });
        });
  refuseDuplicates(agendaStatuses, statusesPath, (name) => name.toLowerCase(), 'agenda status');
  const presetsPath = at(path, 'externalOwnerPresets');
  const externalOwnerPresets =
    fields.externalOwnerPresets == null
      ? []
      : readList(fields.externalOwnerPresets, presetsPath).map((item, index) => {
          const where = at(presetsPath, index);
          const preset = readObject(item, where, ['name', 'externalName', 'externalEmail']);
          return {
            name: requiredString(preset, 'name', where, { max: 200 }),
            externalName: optionalString(preset, 'externalName', where, { max: 200 }),
            externalEmail: optionalString(preset, 'externalEmail', where, { pattern: EMAIL_PATTERN, max: 320 }),
          };
        });
  refuseDuplicates(externalOwnerPresets, presetsPath, (preset) => preset.name, 'preset name');
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
