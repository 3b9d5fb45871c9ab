import { accountChange } from '../../shared/event-log/change-events.ts';
import { writeWithChanges } from '../../shared/event-log/event-log.repository.ts';
import { parseGraphTime, toUnixSeconds } from '../../../lib/social-graph/graph-time.ts';
import { socialErrors } from '../../shared/social-graph/social-errors.ts';
import { assemblePage, mapPage, type Page, type PageArgs } from '../../shared/social-graph/social-paging.ts';
import { findAccount, insertUpcomingEvent, listUpcomingEvents, type UpcomingEventRow } from '../account-edges.repository.ts';
import { SECOND, enumMessage, type EdgeContext } from './edge-context.ts';
import {
  type CreateUpcomingEventInput,
  NOTIFICATION_SUBTYPES,
  NOTIFICATION_TARGET_TIMES,
  type NotificationSubtype,
  type NotificationTargetTime,
  type UpcomingEvent,
} from './account-edges.types.ts';

export const EVENT_TITLE_MAX = 255;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*(?:Z|[+-]\d{2}(?::?\d{2})?))?)?$/i;
const UNIX_DIGITS = /^\d{1,12}$/;

/** Upcoming events of an account (reference §2.2, `upcoming_events`): listing and creation, with their reminders. */
export function createUpcomingEvents(ctx: EdgeContext) {
  const { db, codec, clock, checkAccountId, pageRequest } = ctx;

  async function listEvents(accountId: string, pageArgs: PageArgs): Promise<Page<UpcomingEvent>> {
    checkAccountId(accountId, 'get');
    const request = pageRequest(pageArgs, ['seconds', 'id']);
    const rows = await listUpcomingEvents(db, accountId, request);
    const page = assemblePage(codec, request, rows, (row) => [toUnixSeconds(row.start_time), row.id]);
    return mapPage(page, toUpcomingEvent);
  }

  async function createEvent(accountId: string, input: CreateUpcomingEventInput): Promise<UpcomingEvent> {
    checkAccountId(accountId, 'post');
    const now = clock();
    const title = typeof input.title === 'string' ? input.title.trim() : '';
    if (title === '') throw socialErrors.missingParameter('title');
    if ([...title].length > EVENT_TITLE_MAX) {
      throw socialErrors.invalidParameter('title', `The title can have at most ${EVENT_TITLE_MAX} characters.`);
    }
    const startTime = parseEventTime('start_time', input.startTime, now);
    if (!startTime) throw socialErrors.missingParameter('start_time');
    // An upcoming event: one that has started already has nothing to remind anyone of.
    if (startTime.getTime() <= now.getTime()) throw socialErrors.invalidParameter('start_time', 'start_time must be in the future.');
    const endTime = parseEventTime('end_time', input.endTime, now) ?? null;
    if (endTime && endTime.getTime() <= startTime.getTime()) {
      throw socialErrors.invalidParameter('end_time', 'end_time must be after start_time.');
    }
    const subtypes: NotificationSubtype[] = [];
    (input.notificationSubtypes ?? []).forEach((subtype, index) => {
      if (!(NOTIFICATION_SUBTYPES as readonly string[]).includes(subtype)) {
        throw socialErrors.invalidParameter('notification_subtypes', enumMessage(`notification_subtypes[${index}]`, NOTIFICATION_SUBTYPES));
      }
      // A repeated subtype asks for the same reminder twice: kept once.
      if (!subtypes.includes(subtype as NotificationSubtype)) subtypes.push(subtype as NotificationSubtype);
    });
    const target = input.notificationTargetTime ?? null;
    if (target !== null && !(NOTIFICATION_TARGET_TIMES as readonly string[]).includes(target)) {
      throw socialErrors.invalidParameter('notification_target_time', enumMessage('notification_target_time', NOTIFICATION_TARGET_TIMES));
    }
    if (target === 'EVENT_END' && !endTime) {
      throw socialErrors.invalidParameter('notification_target_time', 'notification_target_time EVENT_END needs an end_time.');
    }
    if (!(await findAccount(db, accountId))) throw socialErrors.unknownObject(accountId, 'post');
    const row = await writeWithChanges(db, async (trx) => {
      const created = await insertUpcomingEvent(trx, {
        account_id: accountId,
        title,
        start_time: startTime,
        end_time: endTime,
        notification_subtypes: subtypes,
        notification_target_time: target as NotificationTargetTime | null,
        created_at: now,
      });
      return { result: created, changes: [accountChange('upcoming_event_created', accountId)] };
    });
    return toUpcomingEvent(row);
  }

  return { listEvents, createEvent };
}

/** An event time: ISO 8601 or unix seconds (the reference asks for ISO; unix is the Graph's usual alternative). */
function parseEventTime(name: string, value: string | number | null | undefined, now: Date): Date | undefined {
  if (value == null || value === '') return undefined;
  const text = typeof value === 'number' ? String(value) : value.trim();
  const at = UNIX_DIGITS.test(text) || ISO_8601.test(text) ? parseGraphTime(text, now) : undefined;
  if (!at) throw socialErrors.invalidParameter(name, `${name} must be an ISO 8601 time or a unix timestamp.`);
  // Whole seconds: the column keeps seconds, and cursors name them exactly.
  return new Date(Math.floor(at.getTime() / SECOND) * SECOND);
}

function toUpcomingEvent(row: UpcomingEventRow): UpcomingEvent {
  return {
    id: row.id,
    accountId: row.account_id,
    title: row.title,
    startTime: row.start_time,
    endTime: row.end_time,
    notificationSubtypes: row.notification_subtypes as NotificationSubtype[],
    notificationTargetTime: row.notification_target_time,
    createdAt: row.created_at,
  };
}
