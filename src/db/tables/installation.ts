/** Row types of installation-wide tables (see migration 0009_installation_secret). */

/** A secret of the whole installation; `value` is base64url of random bytes. */
export interface InstallationSecretRow {
  name: string;
  value: string;
  created_at: string;
}

export interface InstallationTables {
  installation_secrets: InstallationSecretRow;
}
