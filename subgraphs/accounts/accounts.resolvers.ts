import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import { DateTimeScalar, JSONScalar, toConnection } from '../social-store/social-graphql.ts';
import type { PageArgs } from '../social-store/social-paging.ts';
import type { CreateContainerInput, CreateUpcomingEventInput, InsightsParams } from './account-edges.service.ts';
import type { AccountRecord } from './accounts.repository.ts';
import type { AccountsContext } from './accounts-context.ts';
import type { AccountView, MediaPageArgs, MediaView } from './accounts.service.ts';

/** Resolvers decode arguments, call the service and encode; every rule lives in the service. */

type AccountField = (view: AccountView, args: unknown, context: AccountsContext) => unknown;

/** An account field, refused (as the platform does) when the account was reached through business_discovery. */
function accountField(graphName: string, read: (account: AccountRecord) => unknown): AccountField {
  return async (view, _args, context) => {
    context.accounts.checkField(view, graphName, await context.viewer());
    return read(view.account);
  };
}

function ownHostField(graphName: string, read: (account: AccountRecord) => unknown): AccountField {
  return async (view, _args, context) => {
    context.accounts.checkOwnHostField(await context.viewer(), view, graphName);
    return read(view.account);
  };
}

export const accountsResolvers: GraphQLResolverMap<AccountsContext> = {
  DateTime: DateTimeScalar,
  Query: {
    account: async (_: unknown, args: { id: string }, context: AccountsContext) =>
      context.accounts.account(await context.viewer(), args.id),
    me: async (_: unknown, _args: unknown, context: AccountsContext) => context.accounts.me(await context.viewer()),
    platformUser: async (_: unknown, _args: unknown, context: AccountsContext) =>
      context.accounts.platformUser(await context.viewer()),
    media: async (_: unknown, args: { id: string }, context: AccountsContext) =>
      context.accounts.media(await context.viewer(), args.id),
    mediaContainer: async (_: unknown, args: { id: string }, context: AccountsContext) =>
      context.accounts.container(await context.viewer(), args.id),
  },
  Mutation: {
    createMediaContainer: async (_: unknown, args: { accountId: string; input: CreateContainerInput }, context: AccountsContext) =>
      context.accounts.createContainer(await context.viewer(), args.accountId, args.input),
    publishMediaContainer: async (_: unknown, args: { accountId: string; creationId?: string | null }, context: AccountsContext) =>
      context.accounts.publishContainer(await context.viewer(), args.accountId, args.creationId),
    createUpcomingEvent: async (_: unknown, args: { accountId: string; input: CreateUpcomingEventInput }, context: AccountsContext) =>
      context.accounts.createUpcomingEvent(await context.viewer(), args.accountId, args.input),
    authorizeAdAccount: async (
      _: unknown,
      args: { accountId: string; adAccountId?: string | null; business?: string | null },
      context: AccountsContext,
    ) => ({
      success: await context.accounts.authorizeAdAccount(await context.viewer(), args.accountId, {
        adAccountId: args.adAccountId ?? null,
        businessId: args.business ?? null,
      }),
    }),
  },
  Account: {
    __resolveReference: async (reference: { id: string }, context: AccountsContext) => {
      const account = await context.accountLoader.load(reference.id);
      return account ? context.accounts.viewOf(await context.viewer(), account) : null;
    },
    id: accountField('id', (account) => account.id),
    accountType: ownHostField('account_type', (account) => account.accountType),
    userId: ownHostField('user_id', (account) => account.id),
    username: accountField('username', (account) => account.username),
    name: accountField('name', (account) => account.name),
    biography: accountField('biography', (account) => account.biography),
    website: accountField('website', (account) => account.website),
    profilePictureUrl: accountField('profile_picture_url', (account) => account.profilePictureUrl),
    hasProfilePic: accountField('has_profile_pic', (account) => account.profilePictureUrl !== null),
    altText: accountField('alt_text', (account) => account.altText),
    followersCount: accountField('followers_count', (account) => account.followersCount),
    followsCount: accountField('follows_count', (account) => account.followsCount),
    mediaCount: accountField('media_count', (account) => account.mediaCount),
    isPublished: accountField('is_published', (account) => account.isPublished),
    legacySocialUserId: accountField('legacy_social_user_id', (account) => account.legacySocialUserId),
    shoppingProductTagEligibility: async (view: AccountView, _args: unknown, context: AccountsContext) =>
      context.accounts.shoppingProductTagEligibility(await context.viewer(), view),
    media: async (view: AccountView, args: MediaPageArgs, context: AccountsContext) =>
      toConnection(await context.accounts.mediaPage(await context.viewer(), view, 'media', args)),
    stories: async (view: AccountView, args: MediaPageArgs, context: AccountsContext) =>
      toConnection(await context.accounts.mediaPage(await context.viewer(), view, 'stories', args)),
    liveMedia: async (view: AccountView, args: MediaPageArgs, context: AccountsContext) =>
      toConnection(await context.accounts.mediaPage(await context.viewer(), view, 'live', args)),
    tags: async (view: AccountView, args: MediaPageArgs, context: AccountsContext) =>
      toConnection(await context.accounts.mediaPage(await context.viewer(), view, 'tags', args)),
    businessDiscovery: async (view: AccountView, args: { username?: string | null }, context: AccountsContext) =>
      context.accounts.businessDiscovery(await context.viewer(), view, args.username),
    mentionedMedia: async (view: AccountView, args: { mediaId?: string | null }, context: AccountsContext) =>
      context.accounts.mentionedMedia(await context.viewer(), view, args.mediaId),
    insights: async (view: AccountView, args: InsightsParams, context: AccountsContext) =>
      context.accounts.insights(await context.viewer(), view, args),
    contentPublishingLimit: async (view: AccountView, args: { since?: string | null }, context: AccountsContext) =>
      context.accounts.contentPublishingLimit(await context.viewer(), view, args.since),
    recentlySearchedHashtags: async (view: AccountView, args: { first?: number | null }, context: AccountsContext) =>
      context.accounts.recentlySearchedHashtags(await context.viewer(), view, args.first),
    upcomingEvents: async (view: AccountView, args: PageArgs, context: AccountsContext) =>
      toConnection(await context.accounts.upcomingEvents(await context.viewer(), view, args)),
    agencies: async (view: AccountView, args: PageArgs, context: AccountsContext) =>
      toConnection(await context.accounts.agencies(await context.viewer(), view, args)),
    authorizedAdAccounts: async (view: AccountView, args: PageArgs & { business?: string | null }, context: AccountsContext) =>
      toConnection(await context.accounts.authorizedAdAccounts(await context.viewer(), view, args.business, args)),
  },
  JSON: JSONScalar,
  Media: {
    __resolveReference: async (reference: { id: string }, context: AccountsContext) => {
      const media = await context.mediaLoader.load(reference.id);
      return media ? context.accounts.mediaViewOf(await context.viewer(), media) : null;
    },
    id: (view: MediaView) => view.media.id,
    caption: (view: MediaView, _args: unknown, context: AccountsContext) => context.accounts.caption(view),
    mediaType: (view: MediaView) => view.media.mediaType,
    mediaProductType: (view: MediaView) => view.media.mediaProductType,
    mediaUrl: (view: MediaView) => view.media.mediaUrl,
    permalink: (view: MediaView) => view.media.permalink,
    thumbnailUrl: (view: MediaView) => view.media.thumbnailUrl,
    timestamp: (view: MediaView) => view.media.timestamp,
    likeCount: (view: MediaView) => view.media.likeCount,
    isCommentEnabled: (view: MediaView) => view.media.commentEnabled,
    username: (view: MediaView) => view.media.ownerUsername,
    owner: (view: MediaView, _args: unknown, context: AccountsContext) =>
      context.accounts.owner(view, (id) => context.accountLoader.load(id)),
    children: async (view: MediaView, args: MediaPageArgs, context: AccountsContext) =>
      toConnection(await context.accounts.carouselChildren(view, args)),
  },
  PlatformUser: {
    accounts: async (_user: unknown, _args: unknown, context: AccountsContext) =>
      context.accounts.userPages(await context.viewer()),
  },
  Page: {
    socialBusinessAccount: async (page: { accountId: string | null }, _args: unknown, context: AccountsContext) =>
      context.accounts.pageAccount(await context.viewer(), page.accountId, (id) => context.accountLoader.load(id)),
  },
};
