import type { Kysely } from 'kysely';
import { beforeAll, expect } from 'vitest';
import { createCursorCodec } from '../../lib/social-graph/cursor.ts';
import { AppError } from '../../lib/errors.ts';
import { socialId } from '../../lib/social-graph/social-ids.ts';
import { createAccountEdgesService } from '../../subgraphs/accounts/account-edges.service.ts';
import type { AccountEdgesService, AccountEdgesServiceDeps } from '../../subgraphs/accounts/account-edges/account-edges.types.ts';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import { useTestDatabase } from './test-system.ts';

/**
 * The account edges' data and domain layer (subgraphs/accounts/account-edges.service.ts) against a real database: PGlite,
 * or a throwaway PostgreSQL database in the e2e-postgres project. Time is an injected clock the tests move by hand
 * (`setClock`). What the test files of this folder share: the database, the service, builders and the reference's
 * publishing errors.
 */

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const T0 = new Date('2026-03-10T12:00:00.000Z');
export const T0_SECONDS = T0.getTime() / 1000;
export const MIDNIGHT = Date.UTC(2026, 2, 10) / 1000; // the last day end before T0, in unix seconds

/** The social tables of the test database (set before the first test: useAccountEdgesDatabase). */
export let db: Kysely<SocialTables>;
let current = T0;
/** The injected clock: T0 unless a test moved it. */
export const clock = () => new Date(current.getTime());
/** Moves the injected clock to `at`. */
export const setClock = (at: Date) => {
  current = at;
};
export const codec = createCursorCodec('account-edges-test-secret');
/** The service on `db` and `clock`, as the accounts subgraph builds it. */
export let service: AccountEdgesService;

export function serviceWith(options: Partial<AccountEdgesServiceDeps> = {}): AccountEdgesService {
  return createAccountEdgesService({ db, codec, now: clock, ...options });
}

export /** Registers the file's database (a fresh one, migrated) and sets `db` and `service` on it before the first test. */
function useAccountEdgesDatabase(): void {
  const database = useTestDatabase();
  beforeAll(async () => {
    db = database().db.withTables<SocialTables>();
    service = serviceWith();
  });
}

export async function newAccount(username: string): Promise<string> {
  const row = await db
    .insertInto('social.account')
    .values({
      account_type: 'BUSINESS',
      username,
      profile_picture_url: null,
      alt_text: null,
      legacy_social_user_id: null,
      shop_business_id: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function newBusiness(name: string): Promise<string> {
  return (await db.insertInto('social.business').values({ name }).returning('id').executeTakeFirstOrThrow()).id;
}

/** The AppError a call fails with (anything else, or success, fails the test). */
export async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const outcome = await promise.then(
    () => new Error('expected the call to fail, but it succeeded'),
    (error: unknown) => error,
  );
  if (!(outcome instanceof AppError)) throw outcome instanceof Error ? outcome : new Error(String(outcome));
  return outcome;
}

export async function expectMissing(promise: Promise<unknown>, parameter: string): Promise<void> {
  expect(await rejection(promise)).toMatchObject({
    code: 'INVALID_ARGUMENT',
    message: `(#100) The parameter ${parameter} is required`,
    details: { reason: 'MISSING_PARAMETER', parameter },
  });
}

export async function expectInvalid(promise: Promise<unknown>, parameter: string, message: string): Promise<void> {
  expect(await rejection(promise)).toMatchObject({
    code: 'INVALID_ARGUMENT',
    message,
    details: { reason: 'INVALID_PARAMETER', parameter },
  });
}

export async function expectUnknown(promise: Promise<unknown>, id: string, method: 'get' | 'post'): Promise<void> {
  expect(await rejection(promise)).toMatchObject({
    code: 'NOT_FOUND',
    message: `Unsupported ${method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    details: { reason: 'UNKNOWN_OBJECT', id, method },
  });
}

export type PublishingExpectation = { graphCode: number; subcode: number; message: string; userTitle: string; userMessage: string };

export async function expectPublishing(
  promise: Promise<unknown>,
  expected: PublishingExpectation,
  code = 'INVALID_ARGUMENT',
): Promise<void> {
  const { message, ...details } = expected;
  expect(await rejection(promise)).toMatchObject({ code, message, details: { reason: 'PUBLISHING_ERROR', ...details } });
}

export const UNKNOWN_MEDIA_TYPE = (type: string): PublishingExpectation => ({
  graphCode: 100,
  subcode: 2207023,
  message: 'Invalid parameter',
  userTitle: 'Unknown media type',
  userMessage: `The media type ${type} is unknown.`,
});
export const CAROUSEL_SIZE: PublishingExpectation = {
  graphCode: 100,
  subcode: 2207028,
  message: 'Invalid parameter',
  userTitle: 'Carousel validation failed',
  userMessage: "Your post won't be shared as a carousel. Carousels need at least 2 photos/videos and no more than 10 photos/videos.",
};
export const TOO_MANY_TAGS: PublishingExpectation = {
  graphCode: 100,
  subcode: 2207040,
  message: 'Invalid parameter',
  userTitle: 'Too many tags',
  userMessage: 'Cannot use more than 20 tags per created media.',
};
export const CAPTION_TOO_LONG: PublishingExpectation = {
  graphCode: 36004,
  subcode: 2207010,
  message: 'The caption is too long.',
  userTitle: 'Caption too long',
  userMessage: 'The caption can have at most 2,200 characters.',
};
export const TOO_MANY_HASHTAGS: PublishingExpectation = {
  graphCode: 36004,
  subcode: 2207010,
  message: 'The caption has too many hashtags.',
  userTitle: 'Too many hashtags',
  userMessage: 'The caption can have at most 30 hashtags.',
};
export const DOWNLOAD_FAILED = (uri: string): PublishingExpectation => ({
  graphCode: 9004,
  subcode: 2207052,
  message: 'Media download has failed.',
  userTitle: 'Media download has failed',
  userMessage: `The media could not be fetched from this URI: ${uri}. Please check the URI and try again.`,
});
export const THUMB_OFFSET: PublishingExpectation = {
  graphCode: 1,
  subcode: 2207057,
  message: 'An unknown error has occurred.',
  userTitle: 'Invalid thumbnail offset',
  userMessage: 'Thumbnail offset must be greater than or equal to 0 and less than video duration.',
};
export const NOT_FOUND = (id: string): PublishingExpectation => ({
  graphCode: 24,
  subcode: 2207006,
  message: 'The requested resource does not exist',
  userTitle: 'Media not found',
  userMessage: `The media with id ${id} cannot be found.`,
});
export const EXPIRED: PublishingExpectation = {
  graphCode: -2,
  subcode: 2207020,
  message: 'The media has expired.',
  userTitle: 'Media expired',
  userMessage: 'The media you are trying to access has expired. Please try to upload again.',
};
export const NOT_READY: PublishingExpectation = {
  graphCode: 9007,
  subcode: 2207027,
  message: 'Media ID is not available',
  userTitle: 'Media not ready for publishing',
  userMessage: 'The media is not ready for publishing, please wait for a moment',
};
export const FAILED: PublishingExpectation = {
  graphCode: -1,
  subcode: 2207032,
  message: 'Create media fail, please try to re-create media',
  userTitle: 'Create media fail',
  userMessage: 'Failed to create a media container. Try again.',
};
export const LIMIT_REACHED: PublishingExpectation = {
  graphCode: 9,
  subcode: 2207042,
  message: 'Application request limit reached',
  userTitle: 'Max posts limit reached',
  userMessage: 'You reached maximum number of posts that is allowed to be published by Content Publishing API.',
};

export const IMAGE = 'https://cdn.example/photos/1.jpg';
export const IMAGE_2 = 'https://cdn.example/photos/2.jpg';
export const VIDEO = 'https://cdn.example/videos/1.mp4';
export const COVER = 'https://cdn.example/covers/1.jpg';
/** An id of the right kind that names nothing. */
export const missingId = (kind: 'account' | 'container' | 'business' | 'adAccount') => socialId(kind, 999_999_999n);
