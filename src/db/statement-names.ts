/**
 * Names the statements that recur, so that each connection (a pooled one, or the embedded
 * database's only one) parses and plans them once (PostgreSQL prepared statements) instead of on
 * every call. A text is named the second time it is seen, so one-off SQL (e.g. REM SQL mode) stays
 * unnamed, and the number of names is capped: each name costs memory on every connection for the
 * connection's lifetime.
 */
export function statementNames(max = 1000): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  let seenOnce = new Set<string>();
  return (query) => {
    const known = names.get(query.sql);
    if (known || names.size >= max) return known as string;
    if (!seenOnce.has(query.sql)) {
      if (seenOnce.size >= 10 * max) seenOnce = new Set();
      seenOnce.add(query.sql);
      return undefined as unknown as string; // node-postgres: no name, an unnamed statement
    }
    seenOnce.delete(query.sql);
    const name = `remgraph_${names.size}`;
    names.set(query.sql, name);
    return name;
  };
}
