import { DateTimeScalar, JSONScalar, toConnection } from '../shared/social-graph/social-graphql.ts';
import type { CreateContainerInput } from './account-edges/account-edges.types.ts';
import type { AccountRecord } from './accounts.repository.ts';
import type { AccountsContext } from './accounts-context.ts';
import type { AccountView } from './accounts.service.ts';
import type { Resolvers } from './generated/resolvers-types.ts';

/** Resolvers decode arguments, call the service and encode; every rule lives in the service. */

/** An account field, refused (as the platform does) when the account was reached through business_discovery. */
function accountField<T>(graphName: string, read: (account: AccountRecord) => T) {
  return async (view: AccountView, _args: unknown, context: AccountsContext): Promise<T> => {
    context.accounts.checkField(view, graphName, await context.viewer());
    return read(view.account);
  };
}

function ownHostField<T>(graphName: string, read: (account: AccountRecord) => T) {
  return async (view: AccountView, _args: unknown, context: AccountsContext): Promise<T> => {
    context.accounts.checkOwnHostField(await context.viewer(), view, graphName);
    return read(view.account);
  };
}

export const accountsResolvers: Resolvers = {
  DateTime: DateTimeScalar,
  Query: {
    account: async (_, args, context) => context.accounts.account(await context.viewer(), args.id),
    me: async (_, _args, context) => context.accounts.me(await context.viewer()),
    platformUser: async (_, _args, context) => context.accounts.platformUser(await context.viewer()),
    media: async (_, args, context) => context.accounts.media(await context.viewer(), args.id),
    mediaContainer: async (_, args, context) => context.accounts.container(await context.viewer(), args.id),
    socialCaller: async (_, _args, context) => context.accounts.caller(await context.viewer()),
    appSubscriptions: async (_, args, context) => context.webhooks.appSubscriptions(await context.credential(), args.appId),
    subscribedApps: async (_, args, context) => context.webhooks.subscribedApps(await context.viewer(), args.pageId),
  },
  Mutation: {
    subscribeApp: async (_, args, context) => ({
      success: await context.webhooks.subscribeApp(await context.credential(), args.appId, args.input),
    }),
    unsubscribeApp: async (_, args, context) => ({
      success: await context.webhooks.unsubscribeApp(await context.credential(), args.appId, args.object, args.fields),
    }),
    subscribeAccountToApp: async (_, args, context) => ({
      success: await context.webhooks.subscribeAccount(await context.viewer(), args.pageId, args.subscribedFields),
    }),
    unsubscribeAccountFromApp: async (_, args, context) => ({
      success: await context.webhooks.unsubscribeAccount(await context.viewer(), args.pageId),
    }),
    createMediaContainer: async (_, args, context) =>
      context.accounts.createContainer(await context.viewer(), args.accountId, args.input satisfies CreateContainerInput),
    publishMediaContainer: async (_, args, context) =>
      context.accounts.publishContainer(await context.viewer(), args.accountId, args.creationId),
    createUpcomingEvent: async (_, args, context) =>
      context.accounts.createUpcomingEvent(await context.viewer(), args.accountId, args.input),
    authorizeAdAccount: async (_, args, context) => ({
      success: await context.accounts.authorizeAdAccount(await context.viewer(), args.accountId, {
        adAccountId: args.adAccountId ?? null,
        businessId: args.business ?? null,
      }),
    }),
  },
  Account: {
    __resolveReference: async (reference, context) => {
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
    shoppingProductTagEligibility: async (view, _args, context) =>
      context.accounts.shoppingProductTagEligibility(await context.viewer(), view),
    media: async (view, args, context) => toConnection(await context.accounts.mediaPage(await context.viewer(), view, 'media', args)),
    stories: async (view, args, context) => toConnection(await context.accounts.mediaPage(await context.viewer(), view, 'stories', args)),
    liveMedia: async (view, args, context) => toConnection(await context.accounts.mediaPage(await context.viewer(), view, 'live', args)),
    tags: async (view, args, context) => toConnection(await context.accounts.mediaPage(await context.viewer(), view, 'tags', args)),
    businessDiscovery: async (view, args, context) => context.accounts.businessDiscovery(await context.viewer(), view, args.username),
    mentionedMedia: async (view, args, context) => context.accounts.mentionedMedia(await context.viewer(), view, args.mediaId),
    insights: async (view, args, context) => context.accounts.insights(await context.viewer(), view, args),
    contentPublishingLimit: async (view, args, context) =>
      context.accounts.contentPublishingLimit(await context.viewer(), view, args.since),
    recentlySearchedHashtags: async (view, args, context) =>
      context.accounts.recentlySearchedHashtags(await context.viewer(), view, args.first),
    upcomingEvents: async (view, args, context) => toConnection(await context.accounts.upcomingEvents(await context.viewer(), view, args)),
    agencies: async (view, args, context) => toConnection(await context.accounts.agencies(await context.viewer(), view, args)),
    authorizedAdAccounts: async (view, args, context) =>
      toConnection(await context.accounts.authorizedAdAccounts(await context.viewer(), view, args.business, args)),
  },
  JSON: JSONScalar,
  Media: {
    __resolveReference: async (reference, context) => {
      const media = await context.mediaLoader.load(reference.id);
      return media ? context.accounts.mediaViewOf(await context.viewer(), media) : null;
    },
    id: (view) => view.media.id,
    caption: (view, _args, context) => context.accounts.caption(view),
    mediaType: (view) => view.media.mediaType,
    mediaProductType: (view) => view.media.mediaProductType,
    mediaUrl: (view) => view.media.mediaUrl,
    permalink: (view) => view.media.permalink,
    thumbnailUrl: (view) => view.media.thumbnailUrl,
    timestamp: (view) => view.media.timestamp,
    likeCount: (view) => view.media.likeCount,
    isCommentEnabled: (view) => view.media.commentEnabled,
    username: (view) => view.media.ownerUsername,
    owner: (view, _args, context) => context.accounts.owner(view, (id) => context.accountLoader.load(id)),
    children: async (view, args, context) => toConnection(await context.accounts.carouselChildren(view, args)),
  },
  PlatformUser: {
    accounts: async (_user, _args, context) => context.accounts.userPages(await context.viewer()),
  },
  Page: {
    socialBusinessAccount: async (page, _args, context) =>
      context.accounts.pageAccount(await context.viewer(), page.accountId, (id) => context.accountLoader.load(id)),
  },
};
