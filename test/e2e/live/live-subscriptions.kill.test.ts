import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from 'graphql-ws';
import type { DatabaseHandle } from '../../../lib/database/database.ts';
import { writeComment } from '../../../subgraphs/comments/comment-changes.ts';
import { lastEventPosition, readEventsAfter } from '../../../subgraphs/shared/event-log/event-log.repository.ts';
import { matchesFilter } from '../../../subgraphs/shared/event-log/event-log-feed.ts';
import type { SocialTables } from '../../../subgraphs/shared/social-graph/social-tables.ts';
import { openNpmStartWorld, type NpmStartWorld } from '../../support/npm-start-processes.ts';
import { startServiceProcess, type ServiceProcess } from '../../support/os-process.ts';
import type { SocialFixture } from '../../support/social-fixture.ts';
import { createSubscriptionClient, subscribe, type ReceivedResult } from '../../support/subscription-client.ts';

/**
 * Resumable after `kill -9` (issue 27, item 3): `npm start`'s process serving a subscription is killed outright; while
 * it is down comments are still written (another writer of the same database); a new process comes up, the client
 * resumes with its last cursor, and what it received over both processes equals the event log: no gap, no duplicate.
 * Separate OS processes need a database they can share: PostgreSQL.
 */

const MEDIA_EVENTS = `subscription($mediaId: ID!, $after: String) { mediaCommentEvents(mediaId: $mediaId, after: $after) { cursor comment { text } } }`;
const CREATE = `mutation($mediaId: ID!, $message: String) { createMediaComment(mediaId: $mediaId, message: $message) { id } }`;

describe.runIf(process.env.TEST_DATABASE === 'postgres')('a subscription resumed after its gateway process was killed', () => {
  let world: NpmStartWorld;
  let database: DatabaseHandle;
  let fixture: SocialFixture;
  let env: Record<string, string>;
  const processes: ServiceProcess[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    // This test starts npm start twice, one start after the other.
    world = await openNpmStartWorld('live-kill');
    ({ database, fixture } = world);
    env = world.env();
  }, 180_000);
  afterAll(async () => {
    for (const client of clients) void client.dispose();
    await Promise.all(processes.map((service) => service.stop('SIGKILL')));
    await world?.close();
  }, 60_000);

  const start = async () => {
    const started = await startServiceProcess(`start-${processes.length + 1}`, 'dist/bin/start.js', [], env);
    processes.push(started);
    return String(started.listening.graphql);
  };
  const client = (gatewayUrl: string) => {
    const created = createSubscriptionClient(gatewayUrl, { token: fixture.tokens.own });
    clients.push(created);
    return created;
  };
  const comment = async (gatewayUrl: string, mediaId: string, message: string) => {
    const response = await fetch(gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${fixture.tokens.own}` },
      body: JSON.stringify({ query: CREATE, variables: { mediaId, message } }),
    });
    expect(((await response.json()) as { errors?: unknown }).errors).toBeUndefined();
  };

  it('gets every event written while no gateway ran, once, after resuming on the new process', async () => {
    const tables = database.db.withTables<SocialTables>();
    const mediaId = fixture.posts[5]!;
    const from = await lastEventPosition(tables);
    const first = await start();
    const stream = subscribe(client(first), MEDIA_EVENTS, { mediaId, after: from });
    await comment(first, mediaId, 'one');
    const received: ReceivedResult[] = [await stream.next()];

    expect(await processes[0]!.stop('SIGKILL')).toBeNull();
    await expect(stream.ended).rejects.toBeDefined();
    // Written while no gateway runs: the log keeps them.
    for (const text of ['two', 'three']) {
      await writeComment(tables, { mediaId, authorId: fixture.accounts.fanOne, parentId: null, text, timestamp: new Date() }, []);
    }

    const second = await start();
    const resumed = subscribe(client(second), MEDIA_EVENTS, { mediaId, after: received[0]!.data.mediaCommentEvents.cursor });
    received.push(await resumed.next(), await resumed.next());
    await comment(second, mediaId, 'four');
    received.push(await resumed.next());
    expect(received.map((result) => result.data.mediaCommentEvents.comment.text)).toEqual(['one', 'two', 'three', 'four']);
    const logged = (await readEventsAfter(tables, from, 1000)).filter((event) => matchesFilter({ kind: 'mediaComments', mediaId }, event));
    expect(received.map((result) => result.data.mediaCommentEvents.cursor)).toEqual(logged.map((event) => event.position));
    resumed.dispose();
  });
});
