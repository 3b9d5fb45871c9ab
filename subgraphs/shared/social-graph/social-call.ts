import type { GraphQLFieldResolver } from 'graphql';
import { kindOfSocialId } from '../../../lib/social-graph/social-ids.ts';
import type { SubgraphRequestInfo } from '../../subgraph.ts';
import { socialErrors } from './social-errors.ts';
import { RATE_LIMIT_MESSAGES, type SocialAdmission, type SocialRateLimiter, type SocialUsage } from './social-rate-limits.ts';
import { bearerToken } from '../../../lib/auth/bearer-token.ts';

/**
 * One request to a social subgraph as a call the rate limits count: admitted once, by the first root field that runs
 * (a request naming several root fields is one call), before that field does any work. `responseExtensions` and
 * `finish` let the server that ran the request report the usage and record the time the call took.
 */
export interface SocialCallOf {
  /** Admits the call (once per request) about `objectId`; throws the rate-limit error when a limit is reached. */
  admit(objectId: string | undefined): Promise<void>;
  /** `{ socialUsage }` once the call was admitted or refused; undefined before. */
  responseExtensions(): Record<string, unknown> | undefined;
  /** Notes the time of an admitted call; nothing otherwise. */
  finish(): void;
}

export function createSocialCallOf(limiter: SocialRateLimiter, request: SubgraphRequestInfo): SocialCallOf {
  let admission: Promise<SocialAdmission> | undefined;
  let usage: SocialUsage | undefined;
  let admitted: SocialAdmission | undefined;
  return {
    async admit(objectId) {
      admission ??= limiter.admit({
        token: bearerToken(request.authorization),
        objectId: objectId !== undefined && kindOfSocialId(objectId) !== undefined ? objectId : undefined,
        parentHost: request.socialHost === 'parent',
      });
      const outcome = await admission;
      usage = outcome.usage;
      if (outcome.blocked) throw socialErrors.rateLimited(outcome.blocked, RATE_LIMIT_MESSAGES[outcome.blocked]);
      admitted = outcome;
    },
    responseExtensions: () => (usage ? { socialUsage: usage } : undefined),
    finish: () => {
      const call = admitted;
      admitted = undefined;
      call?.finish();
    },
  };
}

/** The object a root field is about: its `id`, `accountId` or `mediaId` argument. */
function objectIdOf(args: Record<string, unknown>): string | undefined {
  const id = args.id ?? args.accountId ?? args.mediaId;
  return typeof id === 'string' ? id : undefined;
}

type ResolverMap = Record<
  string,
  GraphQLFieldResolver<unknown, { call: SocialCallOf }> | { resolve: GraphQLFieldResolver<unknown, { call: SocialCallOf }> }
>;

/**
 * The resolvers with every root field (Query and Mutation) admitting the call first. Entity references and nested
 * fields are not calls of their own: they are parts of a call another subgraph admitted.
 */
export function admittingRootFields<T extends Record<string, unknown>>(resolvers: T): T {
  const wrapped: Record<string, unknown> = { ...resolvers };
  for (const typeName of ['Query', 'Mutation'] as const) {
    const fields = resolvers[typeName] as ResolverMap | undefined;
    if (!fields) continue;
    wrapped[typeName] = Object.fromEntries(
      Object.entries(fields).map(([name, field]) => {
        const resolve = typeof field === 'function' ? field : field.resolve;
        const admitting: GraphQLFieldResolver<unknown, { call: SocialCallOf }> = async (parent, args, context, info) => {
          await context.call.admit(objectIdOf(args as Record<string, unknown>));
          return resolve(parent, args, context, info);
        };
        return [name, typeof field === 'function' ? admitting : { ...field, resolve: admitting }];
      }),
    );
  }
  return wrapped as T;
}
