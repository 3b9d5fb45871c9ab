import { beforeEach, describe, expect, it } from 'vitest';
import {
  lastEventPosition,
  readChangesAfter,
  readEventsAfter,
  type EventLogTables,
} from '../../../subgraphs/shared/event-log/event-log.repository.ts';
import {
  acme,
  acmeAdAccount,
  bluebottle,
  DAY,
  db,
  expectOk,
  isoTime,
  postOwn,
  postParent,
  system,
  T0,
  useAccountEdgesWorld,
} from '../../support/account-edges-world.ts';

/**
 * The social graph's writes that no webhook reports, in the change log (issue 39, item 1): an upcoming event created,
 * an ad account authorized, a publishing container made and published — each logged in the write's transaction with
 * `Account:<id>` and the entities it made (`MediaContainer:<id>`, `Media:<id>`), so a consumer of the log can tell
 * which account's edges changed; webhook delivery and subscriptions (the social readers) never see them.
 */

const now = () => new Date(T0);
useAccountEdgesWorld(now);

describe('the account edges’ writes in the change log', () => {
  let position: string;
  const log = () => system.database.db.withTables<EventLogTables>();
  beforeEach(async () => {
    position = await lastEventPosition(db);
  });

  async function newChanges(): Promise<{ kind: string; keys: string[] }[]> {
    const changes = await readChangesAfter(log(), position, 100);
    return changes.map(({ kind, keys }) => ({ kind, keys }));
  }

  it('logs an upcoming event created and an ad account authorized', async () => {
    expectOk(await postParent(`/${bluebottle}/upcoming_events`, { title: 'Change log night', start_time: isoTime(T0 + 4 * DAY) }));
    expectOk(await postParent(`/${bluebottle}/authorized_adaccounts`, { account_id: acmeAdAccount, business: acme }));
    expect(await newChanges()).toEqual([
      { kind: 'upcoming_event_created', keys: [`Account:${bluebottle}`] },
      { kind: 'ad_account_authorized', keys: [`Account:${bluebottle}`] },
    ]);
  });

  it('logs a container made and its publication, with the media it made; none of it for the social readers', async () => {
    const container = await postOwn(`/${bluebottle}/media`, { image_url: 'https://cdn.example.com/photos/change-log.jpg' });
    expectOk(container);
    const published = await postOwn(`/${bluebottle}/media_publish`, { creation_id: container.body.id });
    expectOk(published);
    expect(await newChanges()).toEqual([
      { kind: 'media_container_created', keys: [`Account:${bluebottle}`, `MediaContainer:${container.body.id}`] },
      {
        kind: 'media_published',
        keys: [`Account:${bluebottle}`, `Media:${published.body.id}`, `MediaContainer:${container.body.id}`],
      },
    ]);
    expect(await readEventsAfter(db, position, 100)).toEqual([]);
  });
});
