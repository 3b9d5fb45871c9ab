import { sql, type Kysely } from 'kysely';

/**
 * How far the event log has been swept (issue 27): the highest position the sweeper removed. A subscription resuming
 * after a cursor below it could have missed events and is refused (resume from the start instead); one at or above it
 * gets every later event. Positions alone cannot tell: an aborted writer leaves a hole in the identity sequence too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table social.event_horizon (
    id boolean primary key default true check (id),
    swept_through bigint not null default 0
  )`.execute(db);
  await sql`insert into social.event_horizon (id, swept_through) values (true, 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table social.event_horizon`.execute(db);
}
