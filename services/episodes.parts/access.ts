/**
 * Methods every episodes module uses: which episodes a user may see (one podcasts call per request),
 * reading and writing that user's states in batches, the queue and downloaded flags (one queue and
 * one downloads call per request), and the list item shapes of the spec ("Episode list items").
 */
import type { EpisodeListItem, QueueItem } from "../../shared/contracts/episodes";
import { episodesPositionsChanged } from "../../shared/contracts/episodes";
import { NotFoundError } from "../../shared/errors";
import type { QueuePositionsResult } from "../../shared/contracts/queue";
import { queuePositions } from "../../shared/contracts/queue";
import { downloadedCount, downloadedIds } from "../../shared/contracts/downloads";
import { isDuplicateKeyError } from "../../shared/db.mixin";
import type { SubscriptionView } from "../../shared/contracts/podcasts";
import { userSubscriptions } from "../../shared/contracts/podcasts";
import type { Caller } from "../../shared/contracts/call";
import type { Ctx } from "../../shared/service-types";
import type { CatalogRow } from "./catalog-index";
import { type EpisodeDoc, type EpisodeStateDoc, idSlices, iso, type Row, visibleQuery, visibleTo } from "./model";
import type { UserStates } from "./state-cache";
import type { EpisodesThis, HistoryItem, StateTarget } from "./this";

/** A queue item as the saved and collection lists answer it: without the description, podcast id, queue place and is_video. */
export function savedListItem(q: QueueItem): Omit<QueueItem, "episodedescription" | "podcastid" | "queueposition" | "queuedate" | "is_video"> {
  const { episodedescription: _d, podcastid: _p, queueposition: _q, queuedate: _qd, is_video: _v, ...item } = q;
  return item;
}

export const accessMethods = {
  /** The user's subscription of a podcast; an admin may read any existing podcast. 404 otherwise. */
  async access(this: EpisodesThis, ctx: Ctx<unknown>, user_id: number, podcast_id: number): Promise<SubscriptionView> {
    const [sub] = await userSubscriptions(ctx, { user_id, podcast_ids: [podcast_id], include_unsubscribed: !!ctx.meta.user?.isAdmin });
    if (!sub) throw new NotFoundError("Podcast not found in your subscriptions");
    return sub;
  },
  /** One episode the user may act on, or 404 (the same answer for another feed's episode and a missing one). */
  async accessibleEpisode(this: EpisodesThis, ctx: Ctx<unknown>, user_id: number, episode_id: number): Promise<EpisodeDoc> {
    const ep: EpisodeDoc | null = await this.adapter.findOne({ _id: episode_id });
    if (!ep) throw new NotFoundError("Episode not found");
    await this.access(ctx, user_id, ep.podcast_id).catch(() => {
      throw new NotFoundError("Episode not found");
    });
    return ep;
  },
  /** An episode of the user's podcasts with this audio URL and (when given) title. */
  async findByNameAndUrl(this: EpisodesThis, ctx: Caller, user_id: number, title: string | undefined, url: string): Promise<EpisodeDoc | null> {
    const subs = await userSubscriptions(ctx, { user_id });
    return this.adapter.findOne(visibleQuery(subs, title === undefined ? { enclosure_url: url } : { enclosure_url: url, title }));
  },
  /** The user's subscriptions by podcast id. */
  async subscriptionsOf(this: EpisodesThis, ctx: Caller, user_id: number): Promise<Map<number, SubscriptionView>> {
    const subs = await userSubscriptions(ctx, { user_id });
    return new Map(subs.map((s) => [s.podcast_id, s]));
  },
  /** Of these ids, the episodes the user sees (their subscriptions, within the cutoff): one call whatever the count. */
  async visibleEpisodes(this: EpisodesThis, ctx: Caller, user_id: number, episode_ids: number[]): Promise<EpisodeDoc[]> {
    if (!episode_ids.length) return [];
    const subs: Map<number, SubscriptionView> = await this.subscriptionsOf(ctx, user_id);
    const found: EpisodeDoc[] = await this.findByIds(this.adapter, episode_ids);
    return found.filter((e) => visibleTo(e, subs.get(e.podcast_id)));
  },
  /** The user's states of these episodes (from the user's cached states: read them, never change them). */
  async statesOf(this: EpisodesThis, user_id: number, episode_ids: number[]): Promise<Map<number, EpisodeStateDoc>> {
    if (!episode_ids.length) return new Map();
    const { byEpisode }: UserStates = await this.userStates(user_id);
    const out = new Map<number, EpisodeStateDoc>();
    for (const e of episode_ids) {
      const st = byEpisode.get(e);
      if (st) out.set(e, st);
    }
    return out;
  },
  /**
   * Sets fields of the user's states of these episodes: one update for the existing states, one insert
   * of the missing ones (complete, with defaults); a state a concurrent request created meanwhile is updated.
   */
  async writeStates(this: EpisodesThis, user_id: number, episodes: StateTarget[], set: Partial<EpisodeStateDoc>): Promise<void> {
    if (!episodes.length) return;
    const ids = episodes.map((e) => e._id);
    // What is known is read from the store, not the cache: a write must not trust a copy.
    const known: Pick<EpisodeStateDoc, "_id" | "episode_id">[] = await this.findByIds(
      this.stores.episode_states,
      ids.map((e) => `${user_id}:${e}`),
      ["episode_id"],
    );
    try {
      await this.storeStates(user_id, episodes, new Set(known.map((s) => s.episode_id)), set);
    } finally {
      await this.statesChanged(user_id, ids);
    }
    // Sync servers relay positions and completions (services/gpodder.service.ts).
    if (set.listen_duration !== undefined || set.completed !== undefined) {
      for (const episode_ids of idSlices(ids)) void episodesPositionsChanged.emit(this.broker, { user_id, episode_ids, origin: null });
    }
  },
  /** writeStates' store writes; `existing`: the episodes that have a state. */
  async storeStates(this: EpisodesThis, user_id: number, episodes: StateTarget[], existing: Set<number>, set: Partial<EpisodeStateDoc>): Promise<void> {
    const store = this.stores.episode_states;
    const known = episodes.filter((e) => existing.has(e._id)).map((e) => `${user_id}:${e._id}`);
    if (known.length) await store.updateMany({ _id: { $in: known } }, { $set: set });
    const fresh: EpisodeStateDoc[] = episodes
      .filter((e) => !existing.has(e._id))
      .map((e) => ({
        _id: `${user_id}:${e._id}`,
        user_id,
        episode_id: e._id,
        podcast_id: e.podcast_id,
        listen_duration: 0,
        completed: false,
        saved: false,
        saved_at: null,
        last_listened_at: null,
        ...set,
      }));
    if (!fresh.length) return;
    try {
      await store.insertMany(fresh);
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      // The batch was refused as a whole: one by one, updating those that exist now.
      for (const doc of fresh) {
        await store.insert(doc).catch(async (e: unknown) => {
          if (!isDuplicateKeyError(e)) throw e;
          await store.updateMany({ _id: doc._id }, { $set: set });
        });
      }
    }
  },
  /** The user's states that `keep` accepts, joined with their catalogue rows and subscriptions (see join). */
  async joinedStates(this: EpisodesThis, ctx: Caller, user_id: number, keep: (st: EpisodeStateDoc) => boolean): Promise<Row<CatalogRow>[]> {
    const states: UserStates = await this.userStates(user_id);
    return this.join(ctx, user_id, states.all().filter(keep));
  },
  /**
   * States of one user joined with their episodes' catalogue rows and subscriptions, in the states'
   * order: one podcasts call whatever the count. States of podcasts the user left or episodes gone are
   * dropped. Sort and filter these rows, then read the page's documents with withDocs.
   */
  async join(this: EpisodesThis, ctx: Caller, user_id: number, states: readonly EpisodeStateDoc[]): Promise<Row<CatalogRow>[]> {
    const subs: Map<number, SubscriptionView> = await this.subscriptionsOf(ctx, user_id);
    const rows: Row<CatalogRow>[] = [];
    for (const st of states) {
      const ep = this.catalog.get(st.episode_id);
      const sub = ep && subs.get(ep.podcast_id);
      if (ep && sub) rows.push({ ep, sub, st });
    }
    return rows;
  },
  /** The rows (a page) with their whole episode documents, in one batched read. */
  async withDocs(this: EpisodesThis, rows: Row<CatalogRow>[]): Promise<Row[]> {
    const docs: EpisodeDoc[] = await this.findByIds(
      this.adapter,
      rows.map((r) => r.ep._id),
    );
    const byId = new Map(docs.map((e) => [e._id, e]));
    return rows.filter((r) => byId.has(r.ep._id)).map((r) => ({ ...r, ep: byId.get(r.ep._id)! }));
  },
  /** Where these episodes are in the user's queue (queued ones only), from the queue service in one call. */
  async queueOf(this: EpisodesThis, ctx: Caller, user_id: number, episode_ids: number[]): Promise<QueuePositionsResult> {
    if (!episode_ids.length) return {};
    return queuePositions(ctx, { user_id, episode_ids });
  },
  /** Which of these episodes (a page) the user has downloaded, from the downloads service in one call. */
  async downloadedOf(this: EpisodesThis, ctx: Caller, user_id: number, episode_ids: number[]): Promise<Set<number>> {
    if (!episode_ids.length) return new Set();
    return new Set(await downloadedIds(ctx, { user_id, episode_ids }));
  },
  /** How many episodes the user has downloaded (the downloads service's count). */
  downloadedCount(this: EpisodesThis, ctx: Caller, user_id: number): Promise<number> {
    return downloadedCount(ctx, { user_id });
  },
  /** An episode with the user's state (episode_items, and the base of every list item); "" for text a feed lacks. */
  episodeItem(this: EpisodesThis, e: EpisodeDoc, sub: SubscriptionView, st: EpisodeStateDoc | undefined): Omit<EpisodeListItem, "downloaded"> {
    return {
      episodeid: e._id,
      podcastid: e.podcast_id,
      podcastname: sub.title,
      episodetitle: e.title,
      episodepubdate: iso(e.pub_date) ?? "",
      episodedescription: e.description ?? "",
      episodeartwork: e.artwork ?? sub.artwork_url ?? "",
      episodeurl: e.enclosure_url ?? "",
      episodeduration: e.duration,
      // Whole seconds (positions are stored as sent, e.g. 12.5): the clients parse an integer.
      listenduration: st?.listen_duration == null ? null : Math.floor(st.listen_duration),
      completed: !!st?.completed,
      saved: !!st?.saved,
      is_vidsite: !!sub.is_vidsite,
      is_youtube: !!sub.is_vidsite,
    };
  },
  /** An episode in list operations (podcast_episodes, return_episodes, select_episodes); downloaded: see downloadedOf. */
  listItem(this: EpisodesThis, e: EpisodeDoc, sub: SubscriptionView, st: EpisodeStateDoc | undefined, downloaded: Set<number>): EpisodeListItem {
    return { ...this.episodeItem(e, sub, st), downloaded: downloaded.has(e._id) };
  },
  /** Queue or next-episode item (also the saved item's fields). */
  queueItem(this: EpisodesThis, r: Row, q: QueuePositionsResult[number] | undefined, downloaded: Set<number>): QueueItem {
    return {
      ...this.listItem(r.ep, r.sub, r.st, downloaded),
      queueposition: q?.position ?? null,
      queuedate: q?.queued_at ?? null,
      queued: !!q,
      is_video: /^video\//.test(r.ep.enclosure_type ?? ""),
    };
  },
  /** History item (spec "Episode list items", plus downloaded as the other lists show it). */
  historyItem(this: EpisodesThis, r: Row, downloaded: Set<number>): HistoryItem {
    return {
      episodeid: r.ep._id,
      podcastname: r.sub.title,
      episodename: r.ep.title,
      episodeartwork: r.ep.artwork ?? r.sub.artwork_url ?? "",
      episodeurl: r.ep.enclosure_url ?? "",
      episodepubdate: iso(r.ep.pub_date) ?? "",
      episodeduration: r.ep.duration,
      listenduration: Math.floor(r.st?.listen_duration ?? 0),
      completed: !!r.st?.completed,
      listendate: iso(r.st?.last_listened_at) ?? "",
      downloaded: downloaded.has(r.ep._id),
      is_vidsite: !!r.sub.is_vidsite,
      is_youtube: !!r.sub.is_vidsite,
      // The title again under the name both PinePods clients read (the documents' history item says episodename).
      episodetitle: r.ep.title,
    };
  },
};
