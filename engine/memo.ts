/**
 * A pure function of a string, kept per argument. A worker meets the same name tokens over and over
 * (thousands of queries against one dictionary), so what is derived from a token is worth keeping;
 * the store starts over when it holds `limit` entries rather than growing with the queries.
 */
export function memoByString<T>(fn: (s: string) => T, limit: number): (s: string) => T {
  const kept = new Map<string, T>();
  return (s: string): T => {
    let value = kept.get(s);
    if (value === undefined) {
      value = fn(s);
      if (kept.size >= limit) kept.clear();
      kept.set(s, value);
    }
    return value;
  };
}
