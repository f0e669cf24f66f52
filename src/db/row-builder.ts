type Row = Record<string, unknown>;
export type RowBuilder = (values: unknown[]) => Row;

/**
 * Turns one array row into an object keyed by `names`, in column order (a repeated name keeps
 * its last value, as the drivers' own objects do).
 *
 * Both drivers build row objects slowly: better-sqlite3 through the V8 API one property at a
 * time (as costly as the rest of reading a page of issues), pg by copying an object of every
 * name and then setting each by computed name (a visible share of a PostgreSQL page's CPU).
 * The builder is an object literal written once per column list, so V8 makes every row from
 * one boilerplate with fast properties, at a small fraction of either cost
 * (docs/decisions/0057-rows-as-arrays.md, docs/performance.md). The names are our own
 * statements' columns and aliases, and each is written as a JSON string literal, so no name
 * can be anything but a property name. `__proto__` as a literal key would set the
 * prototype, so a list holding it is built property by property instead.
 */
export function rowBuilder(names: readonly string[]): RowBuilder {
  if (names.includes('__proto__')) return definingBuilder(names);
  const properties = names.map((name, index) => `${JSON.stringify(name)}: values[${index}]`);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- see above: keys are JSON string literals.
  return new Function('values', `return { ${properties.join(', ')} };`) as RowBuilder;
}

/** Each name defined as an own property, `__proto__` included (never taken as the prototype). */
function definingBuilder(names: readonly string[]): RowBuilder {
  return (values) => {
    const row: Row = {};
    names.forEach((name, index) =>
      Object.defineProperty(row, name, { value: values[index], enumerable: true, writable: true, configurable: true }),
    );
    return row;
  };
}
