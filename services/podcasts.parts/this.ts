/**
 * The podcasts service's `this`, once for every part: the db mixin's stores, the methods each part
 * defines (so what one part calls of another is checked), and the service's own fields.
 */
import type { Caller, Emitter } from "../../shared/contracts/call";
import type { ApplyFeedParams, ClientPodcast, PodcastListItem, SubscribedAnswer, SubscriptionView } from "../../shared/contracts/podcasts";
import type { SyncResult } from "../../shared/contracts/episodes";
import type { Ctx, DbThis } from "../../shared/service-types";
import type { AliasDoc, Fallback, FeedRef, PodcastDoc, SubscriptionDoc, ViewDoc } from "./model";
import type { Ranked } from "./recommendations.actions";

/** A subscription with its podcast. */
export interface PodRow {
  pod: PodcastDoc;
  sub: SubscriptionDoc;
}

/** A handler's Context as the methods take it: any params (they read only meta and call). */
export type AnyCtx = Ctx<unknown>;

export interface PodcastsMethods {
  // subscribe.actions.ts
  clientPodcast(podcast_id: number): Promise<ClientPodcast>;
  subscribe(
    ctx: AnyCtx,
    user_id: number,
    feed: FeedRef,
    opts: { podcast_index_id: number | null; feed_cutoff_days: number; fallback: Fallback; origin?: string },
  ): Promise<SubscribedAnswer>;
  podcastFor(ctx: AnyCtx, feed: FeedRef, opts: { user_id: number; podcast_index_id: number | null; fallback: Fallback }): Promise<{ pod: PodcastDoc }>;
  startImport(ctx: Caller, user_id: number, pod: PodcastDoc): Promise<void>;
  applyFeed(podcast_id: number, fetched: ApplyFeedParams["fetched"], sync: SyncResult, complete: boolean): Promise<void>;
  removeByName(ctx: Emitter, p: { user_id: number; podcast_name: string; podcast_url: string }): Promise<{ success: boolean }>;
  unsubscribe(ctx: Emitter, sub: SubscriptionDoc): Promise<void>;
  feedsChanged(ctx: Emitter, user_id: number, added: (PodcastDoc | null)[], removed: (PodcastDoc | null)[], origin?: string): void;
  // read.actions.ts
  keepViews(user_id: number, mark: string, views: SubscriptionView[]): void;
  readable(ctx: AnyCtx, user_id: number, podcast_id: number): Promise<{ pod: PodcastDoc; sub: SubscriptionDoc | null }>;
  userPodcasts(user_id: number): Promise<PodRow[]>;
  listedPodcasts(user_id: number): Promise<PodRow[]>;
  findByName(user_id: number, name: string, url: string): Promise<PodRow | null>;
  view(p: ViewDoc, s: SubscriptionDoc | null): SubscriptionView;
  podItem(p: PodcastDoc, s: SubscriptionDoc): PodcastListItem;
  // settings.actions.ts
  subscriptionOf(user_id: number, podcast_id: number): Promise<SubscriptionDoc>;
  editCategories(p: { user_id: number; podcast_id: number }, edit: (list: string[]) => string[]): Promise<string[]>;
  // moves.actions.ts
  podcastByKey(key: string): Promise<PodcastDoc | null>;
  podcastsByUrls(urls: string[]): Promise<PodcastDoc[]>;
  // recommendations.actions.ts
  rankedFor(ctx: Caller, user_id: number, refresh: boolean): Promise<Ranked>;
}

export type PodcastsThis = DbThis<PodcastDoc, { subscriptions: SubscriptionDoc; podcast_aliases: AliasDoc }> &
  PodcastsMethods & {
    /** user_id -> the user's subscription views and the stores' mark they were read under (user_subscriptions). */
    viewsByUser: Map<number, { mark: string; views: readonly SubscriptionView[] }>;
    /** user_id -> their ranking (recommendations), made on first use. */
    recommendationCache?: Map<number, Ranked>;
  };
