import { it } from 'vitest';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { seedDeepRead, DEEP_QUERY, DEEP_FIELDS } from '../../bench/social-deep-read.ts';
import { startTestSystem } from '../support/test-system.ts';
it('heap', async () => {
  const system = await startTestSystem();
  const f = await seedDeepRead(system.database);
  const gql = () => fetch(system.gatewayUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${f.token}`, 'x-social-host': 'own' }, body: JSON.stringify({ query: DEEP_QUERY, variables: { id: f.accountId } }) }).then((r) => r.text());
  const rest = () => fetch(`${system.restUrl}/v25.0/${f.accountId}?fields=${encodeURIComponent(DEEP_FIELDS)}`, { headers: { authorization: `Bearer ${f.token}` } }).then((r) => r.text());
  console.log((await gql()).slice(0, 200));
  console.log((await rest()).slice(0, 200));
  for (const [name, run] of [['graphql', gql], ['rest', rest]] as const) {
    for (let i = 0; i < 30; i++) await run();
    const session = new Session();
    session.connect();
    await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    for (let i = 0; i < 60; i++) await run();
    const { profile } = await session.post('HeapProfiler.stopSampling');
    writeFileSync(`/work/scratch/heap-${name}.json`, JSON.stringify(profile));
    session.disconnect();
  }
  await system.close();
}, 300000);
