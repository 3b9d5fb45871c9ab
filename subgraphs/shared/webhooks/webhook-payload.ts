import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SocialEventField, SocialEventKind, SocialEventRecord } from '../event-log/social-events.ts';

/**
 * What a webhook delivery sends (../shared/reference/social-graph.md §6.4): the body, its signatures, its headers.
 *
 * Body: `{"object":"social","entry":[{"id":"<account id>","time":<unix seconds when sent>,"changes":[{"field","value"}]}]}`
 * — one entry per account of the batch, in the order the accounts first appear in the log, each with its changes in log
 * order; with include_values=false an entry carries `changed_fields` (each field once, in the order first changed)
 * instead of `changes`. The `changes[]` form is the one emitted on both hosts (§6.7, conflict 2).
 *
 * Headers:
 * - `Content-Type: application/json`
 * - `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body, keyed with the app secret>` (§6.4)
 * - `X-Hub-Signature: sha1=<hex HMAC-SHA1 of the same bytes>` (the legacy header Meta's samples still verify)
 * - `X-Tributary-Delivery: <app id>:<object>:<from>-<to>` — the delivery's identity: the log positions the batch covers,
 *   `from` exclusive and `to` inclusive. Every retry of a batch carries the same identity (only `time` changes in the
 *   body), so a receiver deduplicates on it: delivery is at least once, and a batch whose answer was lost, or whose
 *   worker died before recording the answer, comes again under the same identity. Identities of one callback never
 *   overlap and grow with the log.
 */

/** The webhook fields each kind of event is delivered under; hidden, shown and deleted are never webhooks (§6.5). */
export const WEBHOOK_FIELDS_BY_KIND: Readonly<Record<SocialEventKind, readonly SocialEventField[]>> = Object.freeze({
  comment_created: ['comments', 'live_comments'],
  mentioned: ['mentions'],
  comment_hidden: [],
  comment_shown: [],
  comment_deleted: [],
});

/** The header carrying a delivery's identity. */
export const DELIVERY_HEADER = 'X-Tributary-Delivery';

export interface WebhookEntry {
  id: string;
  time: number;
  changes?: { field: string; value: Record<string, unknown> }[];
  changed_fields?: string[];
}

export interface WebhookPayload {
  object: string;
  entry: WebhookEntry[];
}

/** The body of a batch of events (in log order), sent at `sentAt`. */
export function webhookPayload(object: string, events: readonly SocialEventRecord[], includeValues: boolean, sentAt: Date): WebhookPayload {
  const time = Math.floor(sentAt.getTime() / 1000);
  const entries = new Map<string, WebhookEntry>();
  for (const event of events) {
    let entry = entries.get(event.accountId);
    if (!entry) {
      entry = includeValues ? { id: event.accountId, time, changes: [] } : { id: event.accountId, time, changed_fields: [] };
      entries.set(event.accountId, entry);
    }
    if (includeValues) entry.changes!.push({ field: event.field, value: event.value });
    else if (!entry.changed_fields!.includes(event.field)) entry.changed_fields!.push(event.field);
  }
  return { object, entry: [...entries.values()] };
}

/** The identity of the delivery of a subscription's events after `fromExclusive` up to `toInclusive`. */
export function deliveryIdentity(appId: string, object: string, fromExclusive: string, toInclusive: string): string {
  return `${appId}:${object}:${fromExclusive}-${toInclusive}`;
}

/** The signature headers' values over `rawBody`. */
export function signatures(rawBody: Buffer, secret: string): { sha256: string; sha1: string } {
  return {
    sha256: `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`,
    sha1: `sha1=${createHmac('sha1', secret).update(rawBody).digest('hex')}`,
  };
}

/** A delivery ready to send: the exact bytes, and the headers that go with them. */
export interface SignedDelivery {
  body: Buffer;
  headers: Record<string, string>;
}

/** Serialises `payload` once and signs those very bytes. */
export function signedDelivery(payload: WebhookPayload, secret: string, identity: string): SignedDelivery {
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  const { sha256, sha1 } = signatures(body, secret);
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'X-Hub-Signature-256': sha256,
      'X-Hub-Signature': sha1,
      [DELIVERY_HEADER]: identity,
    },
  };
}

/**
 * For receivers (and tests): true when `header` — an `X-Hub-Signature-256` (`sha256=<hex>`) or `X-Hub-Signature`
 * (`sha1=<hex>`) value — is the signature of `rawBody` with `secret`. Compares in constant time; false for anything
 * malformed or missing.
 */
export function verifySignature(rawBody: Buffer | string, header: string | readonly string[] | undefined, secret: string): boolean {
  if (typeof header !== 'string') return false;
  const match = /^(sha256|sha1)=([0-9a-fA-F]+)$/.exec(header.trim());
  if (!match) return false;
  const [, algorithm, hex] = match as unknown as [string, 'sha256' | 'sha1', string];
  const expected = createHmac(algorithm, secret)
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest();
  if (hex.length !== expected.length * 2) return false;
  return timingSafeEqual(Buffer.from(hex, 'hex'), expected);
}
