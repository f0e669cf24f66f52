/**
 * The desired values that differ from the stored row, or undefined when nothing differs
 * (so a re-apply writes nothing, not even updated_at). A desired value of undefined is a
 * field the file leaves out: the stored value stays.
 */
export function changedFields<R extends object>(row: R, desired: Partial<R>): Partial<R> | undefined {
  const changes: Partial<R> = {};
  let changed = false;
  for (const key of Object.keys(desired) as Array<keyof R>) {
    const value = desired[key];
    if (value !== undefined && value !== row[key]) {
      changes[key] = value;
      changed = true;
    }
  }
  return changed ? changes : undefined;
}

/** Whether two collections hold the same distinct values, in any order. */
export function sameSet(a: Iterable<string>, b: Iterable<string>): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((value) => right.has(value));
}

/** 0/1 for a boolean the file gives, undefined for one it leaves out. */
export const flag = (value: boolean | undefined): number | undefined =>
  value === undefined ? undefined : value ? 1 : 0;
