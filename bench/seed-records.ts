import { insertUserExample } from '../subgraphs/users/user-example.repository.ts';

/**
 * Inserts `count` Area A records through the repository, eight at a time, all with one precomputed password hash (seeding
 * is not what the bench measures); returns their ids in insertion order. Used by the bench server and the memory section.
 */
export async function seedRecords(db: Parameters<typeof insertUserExample>[0], passwordHash: string, count: number): Promise<string[]> {
  const ids: string[] = new Array<string>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next;
      next += 1;
      ids[i] = await insertUserExample(db, {
        name: `Bench User ${i}`,
        email: `bench-seed-${i}@example.com`,
        passwordHash,
        phone: `138${String(i).padStart(8, '0')}`,
        avatar: `https://example.com/avatars/${i}.png`,
        age: 20 + (i % 60),
        gender: i % 3,
      });
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return ids;
}
