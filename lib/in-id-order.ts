/**
 * The records of a batch load in the order of the ids asked for, undefined where none was found: what a DataLoader batch
 * function and an entity-reference resolver return. Ids may repeat; the records come back in any order, as SQL gives them.
 */
export function inIdOrder<R extends { id: string }>(ids: readonly string[], records: readonly R[]): (R | undefined)[] {
  const found = new Map(records.map((record) => [record.id, record]));
  return ids.map((id) => found.get(id));
}
