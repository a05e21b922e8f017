/**
 * Look-up in a table keyed by DNS suffix (a TLD, or more labels): the longest
 * suffix of the domain that the table holds wins (RFC 9224 §4).
 */
export function lookupBySuffix<T>(table: ReadonlyMap<string, T>, domain: string): T | undefined {
  const labels = domain.toLowerCase().replace(/\.$/, "").split(".");
  for (let i = 0; i < labels.length; i++) {
    const hit = table.get(labels.slice(i).join("."));
    if (hit !== undefined) return hit;
  }
  return undefined;
}
