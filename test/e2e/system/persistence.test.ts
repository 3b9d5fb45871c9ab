import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestSystem } from '../../support/test-system.ts';

// The embedded database persists under DATA_DIR: what npm start writes is there after a restart.
describe.runIf(process.env.TEST_DATABASE !== 'postgres')('the embedded database', () => {
  let dataDir: string | undefined;
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps records across a restart', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tributary-data-'));
    const first = await startTestSystem({ DATA_DIR: dataDir });
    let id: string;
    try {
      const created = await fetch(`${first.restUrl}/api/v1/userExample`, {
        method: 'POST',
        body: JSON.stringify({
          name: 'Persisted',
          email: 'persisted@example.com',
          password: 'correct horse battery',
          phone: '13800138000',
          avatar: 'https://example.com/a.png',
          age: 40,
          gender: 'MALE',
        }),
      });
      expect(created.status).toBe(200);
      id = ((await created.json()) as { id: string }).id;
    } finally {
      await first.close();
    }

    const second = await startTestSystem({ DATA_DIR: dataDir });
    try {
      const read = await fetch(`${second.restUrl}/api/v1/userExample/${id}`, {
        headers: { authorization: `Bearer ${second.adminToken()}` },
      });
      expect(read.status).toBe(200);
      const body = (await read.json()) as { userExample: { id: string; name: string; email: string } };
      expect(body.userExample).toMatchObject({ id, name: 'Persisted', email: 'persisted@example.com' });
    } finally {
      await second.close();
    }
  });
});
