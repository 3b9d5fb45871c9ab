/**
 * Ids of the social graph (Areas B and C): 64-bit numeric strings, as in the reference (e.g. 17841405822304914), that also
 * tell what kind of object they name. A Graph client only ever treats ids as opaque strings, but the REST adapter has to
 * route `GET /{id}` to a comment or an account without a lookup, and every service can refuse an id of the wrong kind as
 * "does not exist" without touching the database.
 *
 *   id = ID_BASE + sequence × KIND_SLOTS + kind
 *
 * ID_BASE puts every id above 2^53 (17 digits, like the reference's), so 64-bit handling is exercised on every request.
 * Tables draw their ids from a database sequence with this formula as the column default (see socialIdDefault).
 */

export const ID_BASE = 17_840_000_000_000_000n;
export const KIND_SLOTS = 16n;

export const SOCIAL_KINDS = {
  account: 1,
  media: 2,
  comment: 3,
  container: 4,
  event: 5,
  hashtag: 6,
  business: 7,
  adAccount: 8,
  platformUser: 9,
  page: 10,
  insight: 11,
  app: 12,
} as const;

export type SocialKind = keyof typeof SOCIAL_KINDS;

const KIND_BY_TAG = new Map<number, SocialKind>((Object.keys(SOCIAL_KINDS) as SocialKind[]).map((kind) => [SOCIAL_KINDS[kind], kind]));

const INT64_MAX = 9_223_372_036_854_775_807n;

/** The id of the `sequence`-th object of a kind (sequence ≥ 1). */
export function socialId(kind: SocialKind, sequence: bigint): string {
  return (ID_BASE + sequence * KIND_SLOTS + BigInt(SOCIAL_KINDS[kind])).toString();
}

/** The kind an id names, or undefined when the text is not an id of this graph. */
export function kindOfSocialId(id: string): SocialKind | undefined {
  if (!/^[1-9]\d{16,18}$/.test(id)) return undefined;
  const value = BigInt(id);
  if (value <= ID_BASE || value > INT64_MAX) return undefined;
  return KIND_BY_TAG.get(Number((value - ID_BASE) % KIND_SLOTS));
}

/** True when `id` is a well-formed id of `kind`. */
export function isSocialId(id: string, kind: SocialKind): boolean {
  return kindOfSocialId(id) === kind;
}

/**
 * The ids of `ids` that are well formed for `kind`, for batch loaders: what a caller sent (an entity reference, an
 * argument) may be any text — `"1e3"`, 2^64, an id of another kind — and such an id names nothing, so it must not reach a
 * bigint column, where it would fail the whole batch's statement instead of being "not found".
 */
export function wellFormedIds(ids: readonly string[], kind: SocialKind): string[] {
  return ids.filter((id) => isSocialId(id, kind));
}

/** SQL default expression for an id column of `kind`, drawing from `sequence` (schema-qualified). */
export function socialIdDefault(kind: SocialKind, sequence: string): string {
  return `(${ID_BASE} + nextval('${sequence}') * ${KIND_SLOTS} + ${SOCIAL_KINDS[kind]})`;
}
