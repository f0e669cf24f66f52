/** `outcome`, logging `answered <value>` or `failed <value>` in `log` once it settles. */
export function logOutcome<T>(log: string[], value: string, outcome: Promise<T>): Promise<T> {
  return outcome.then(
    (result) => {
      log.push(`answered ${value}`);
      return result;
    },
    (error: unknown) => {
      log.push(`failed ${value}`);
      throw error;
    },
  );
}
