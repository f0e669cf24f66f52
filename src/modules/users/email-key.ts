/**
 * The form of an email address that sign-in compares: ASCII letters lower-cased, every other
 * character kept as it is. Computed here only and stored (`users.email_key`), then compared
 * exactly in SQL, so one rule decides: `ALICE@acme.test` is `alice@acme.test`, but `K`
 * (U+212A KELVIN SIGN) is not `k`, nor `é` `É`, which SQL's lower() and JavaScript's
 * toLowerCase() would each fold their own way.
 */
export const emailKey = (email: string): string => email.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
