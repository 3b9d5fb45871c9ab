/**
 * `table[key]` for a key that came from a request, counting only the table's own entries. A plain object literal also
 * answers `constructor`, `__proto__`, `toString` and `valueOf` from Object.prototype, so a lookup table indexed by
 * client text must never be read with `table[key]` alone: a request naming a field `constructor` would find a function
 * where a table entry was expected.
 */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
