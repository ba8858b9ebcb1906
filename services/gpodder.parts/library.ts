/**
 * One library both ways. What devices send is applied here after it is stored (never in the way of the
 * upload's answer): added feeds are subscribed through podcasts.sync_subscriptions with the user's rights
 * (the outbound policy applies), removed ones unsubscribed (listening history kept), play actions set
 * positions through episodes.apply_sync_states (newest timestamp wins), in batches. A feed that cannot be
 * subscribed yet stays in the devices' lists, is retried with growing pauses and is reported (updates'
 * not_applied). The other way, the podcasts and episodes services' events become changes of
 * SERVER_DEVICE; changes that came from a device carry origin "gpodder" and are not echoed.
 */
import type { ServiceEvents, ServiceMethods } from "moleculer";
import { config } from "../../shared/config";
import { SERVER_DEVICE } from "../../shared/contracts/gpodder";
import type { PositionsChangedEvent, SyncEpisodeState } from "../../shared/contracts/episodes";
import { applySyncStates, episodesPositionsChanged, syncStates } from "../../shared/contracts/episodes";
import type { FeedMovedEvent, FeedsChangedEvent, SyncFeed } from "../../shared/contracts/podcasts";
import { podcastsFeedMoved, podcastsFeedsChanged, syncFeeds, syncSubscriptions } from "../../shared/contracts/podcasts";
import type { Ctx, Query } from "../../shared/service-types";
import { ActionDoc, FeedDoc, feedsOf, rkeyRange, UserDoc } from "./model";
import type { GpodderThis, NewAction, UserRecord } from "./this";

/** The origin this service gives the changes it applies, so that their events are not turned back into changes. */
export const ORIGIN = "gpodder";
/** Feeds subscribed per podcasts call (each may fetch a feed): progress is recorded between batches. */
const FEED_BATCH = 25;
/** States per episodes call. */
const STATE_BATCH = 20_000;
/** The library states of a feed that still has to be applied. */
const WAITING = ["pending", "failed"];
/** The longest pause between two tries of a feed. */
const MAX_RETRY_MS = 24 * 3600 * 1000;

/**
 * A position or completion here as a play action of this server's device: the feed URL as podcast, the
 * enclosure URL as episode, with the episode's guid (apps match by it when the URL changed). gPodder's
 * documentation sends started and total only together with position, and AntennaPod applies a play only
 * with started >= 0, position > 0 and total > 0: started is 0 and total the episode's duration, and a
 * completed episode is played to its end, position = total (the position reached stands for the duration
 * when that is unknown). A position of an episode of unknown duration goes alone.
 */
function serverPlay(s: SyncEpisodeState): NewAction {
  const total = s.total > 0 ? s.total : s.completed && s.position > 0 ? s.position : null;
  const position = s.completed && total !== null ? total : s.position;
  return {
    podcast: s.podcast_url,
    episode: s.episode_url,
    guid: s.guid || null,
    device: SERVER_DEVICE,
    here: true,
    action: "play",
    timestamp: s.timestamp.slice(0, 19),
    started: total === null ? null : 0,
    position,
    total,
  };
}

export const libraryEvents: ServiceEvents = {
  /** Subscriptions added or removed here (API, OPML import, this server's own podsync/cloudsync): a change of SERVER_DEVICE for every device. */
  [podcastsFeedsChanged.eventName]: {
    async handler(this: GpodderThis, ctx: Ctx<FeedsChangedEvent>) {
      const { user_id, added, removed, origin } = ctx.params;
      if (origin === ORIGIN || !(await this.adapter.findOne({ _id: user_id }))) return;
      await this.changeFeeds(user_id, SERVER_DEVICE, added, removed, false);
    },
  },
  /**
   * A feed here moved for good: for each of its subscribers, a change of SERVER_DEVICE (the old URL removed, the new
   * one added: how the API tells every device), and the old URL's record says where it went, so a device that still
   * sends the old URL gets the new one back in update_urls.
   */
  [podcastsFeedMoved.eventName]: {
    async handler(this: GpodderThis, ctx: Ctx<FeedMovedEvent>) {
      const { old_url, new_url, user_ids } = ctx.params;
      const users: UserRecord[] = await this.adapter.find({ query: { _id: { $in: user_ids } } });
      for (const { _id } of users) await this.changeFeeds(_id, SERVER_DEVICE, [new_url], [old_url], false, { from: new Map([[old_url, new_url]]) });
    },
  },
  /** Positions and completions recorded here: play actions of SERVER_DEVICE. */
  [episodesPositionsChanged.eventName]: {
    async handler(this: GpodderThis, ctx: Ctx<PositionsChangedEvent>) {
      const { user_id, episode_ids, origin } = ctx.params;
      if (origin === ORIGIN || !episode_ids.length || !(await this.adapter.findOne({ _id: user_id }))) return;
      const feeds: SyncFeed[] = await syncFeeds(ctx, { user_id });
      const states: SyncEpisodeState[] = await syncStates(ctx, { user_id, feeds, episode_ids });
      if (states.length) await this.storeActions(user_id, states.map(serverPlay), false);
    },
  },
};

export const libraryMethods: ServiceMethods = {
  /**
   * A user's first call: the library as it is becomes SERVER_DEVICE's subscriptions and play actions, so
   * a phone's first sync receives it all; from then on the events keep the devices in step.
   */
  async seedLibrary(this: GpodderThis, user_id: number): Promise<void> {
    const feeds: SyncFeed[] = await syncFeeds(this.broker, { user_id });
    await this.changeFeeds(
      user_id,
      SERVER_DEVICE,
      feeds.map((f) => f.feed_url),
      [],
      false,
    );
    const states: SyncEpisodeState[] = feeds.length ? await syncStates(this.broker, { user_id, feeds }) : [];
    if (states.length) await this.storeActions(user_id, states.map(serverPlay), false);
  },
  /**
   * Applies what devices sent, in the background; a call while it runs makes it run once more. The promise
   * (never rejected) settles when the run that includes this call's changes has ended. feeds true: every feed
   * that waits; a list of feed ids: those an upload changed (read by id, however many feeds the user has); false:
   * only episode actions came (feeds waiting for a retry wait for the retry round).
   */
  applySoon(this: GpodderThis, user_id: number, feeds: boolean | string[] = true): Promise<void> {
    const state = this.applying.get(user_id) ?? { rerun: false, feeds: false, ids: new Set<string>(), done: Promise.resolve() };
    state.rerun = true;
    if (feeds === true) state.feeds = true;
    else if (feeds) for (const id of feeds) state.ids.add(id);
    if (this.applying.has(user_id)) return state.done;
    this.applying.set(user_id, state);
    state.done = (async () => {
      // Once the upload's answer is out (it is written in this turn of the event loop): this work shares the process.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (state.rerun) {
        const { feeds: all, ids } = state;
        state.rerun = false;
        state.feeds = false;
        state.ids = new Set();
        if (all) await this.applyFeeds(user_id);
        else if (ids.size) await this.applyFeeds(user_id, [...ids]);
        await this.applyActions(user_id);
      }
    })()
      .catch((err: Error) => this.logger.warn("applying synced changes failed; retried later", { user_id, reason: err?.message }))
      .finally(() => this.applying.delete(user_id));
    return state.done;
  },
  /** The retry round: users with feeds due for another try (their record's mark), or with actions not applied yet. */
  async applyDue(this: GpodderThis): Promise<void> {
    const now = Date.now();
    const docs: UserRecord[] = await this.adapter.find({});
    // A record without a clock has nothing received (undefined compared as no clock).
    const due = docs.filter((u) => (typeof u.feeds_due_at === "number" && u.feeds_due_at <= now) || (u.clock !== undefined && (u.applied_seq ?? 0) < u.clock));
    for (const u of due) void this.applySoon(u._id); // never rejects; runs in the background
  },
  /**
   * Subscribes and unsubscribes here what devices changed; a feed that fails is kept for a later try. ids: only these
   * feeds (an upload's own: what other feeds wait for a retry is left to the retry round).
   */
  async applyFeeds(this: GpodderThis, user_id: number, ids?: string[]): Promise<void> {
    const user: UserDoc = await this.userDoc(user_id);
    // No mark: no feed of the user waits (an upload that changed no feed, or only episode actions), nothing to read.
    if (user.feeds_due_at === null || user.feeds_due_at === undefined) return;
    const scope = ids ? { _id: { $in: ids } } : feedsOf(user_id);
    // Due ones only, asked of the store: a first sync can leave a thousand feeds waiting for their retry.
    const notWaiting = [{ next_try: null }, { next_try: { $exists: false } }, { next_try: { $lte: new Date() } }];
    const due: FeedDoc[] = await this.stores.gpodder_feeds.find({ query: { ...scope, library: { $in: WAITING }, $or: notWaiting } });
    await this.applyFeedBatches(user, due);
    // Only a pass over every feed knows what still waits: an upload's own pass leaves the mark to the retry round's.
    if (ids) return;
    // The mark now says when the next failed feed is due, or that none waits; unless a newer write marked the user meanwhile (its own run follows).
    const waiting = await this.findFields(this.stores.gpodder_feeds, { ...feedsOf(user_id), library: { $in: WAITING } }, ["next_try"]);
    const next = waiting.length ? waiting.reduce((min, f) => Math.min(min, f.next_try ? new Date(f.next_try).getTime() : Date.now()), Infinity) : null;
    await this.adapter.updateMany({ _id: user_id, feeds_mark: user.feeds_mark ?? 0 }, { $set: { feeds_due_at: next } });
  },
  /** Subscribes and unsubscribes the due feeds, FEED_BATCH a call, recording each outcome between batches. */
  async applyFeedBatches(this: GpodderThis, user: UserDoc, due: FeedDoc[]): Promise<void> {
    const user_id = user._id;
    const meta = { user: { id: user_id, isAdmin: user.is_admin, keyId: 0, rssOnly: false, podcastIds: null } };
    for (let i = 0; i < due.length; i += FEED_BATCH) {
      const batch = due.slice(i, i + FEED_BATCH);
      const add = batch.filter((f) => f.subscribed).map((f) => f.url);
      const remove = batch.filter((f) => !f.subscribed).map((f) => f.url);
      const res = await syncSubscriptions(this.broker, { user_id, add, remove, origin: ORIGIN }, { meta });
      const failed = new Map(res.failed.map((f) => [f.url, f.reason]));
      const triedAt = Date.now();
      // Feeds with the same outcome in one update (a first sync's feeds share their clock value, and often their error).
      const updates = new Map<string, { ids: string[]; seq: number; set: object }>();
      for (const f of batch) {
        const reason = failed.get(f.url);
        const attempts = f.attempts ?? 0;
        const retryMs = Math.min(MAX_RETRY_MS, config.gpodderRetrySeconds * 1000 * 2 ** attempts);
        const set =
          reason === undefined
            ? { library: "applied", last_error: null, next_try: null }
            : { library: "failed", attempts: attempts + 1, last_error: reason.slice(0, 500), next_try: new Date(triedAt + retryMs) };
        const key = JSON.stringify([f.seq, set]);
        if (!updates.has(key)) updates.set(key, { ids: [], seq: f.seq, set });
        updates.get(key)!.ids.push(f._id);
      }
      // Only if no newer change of the feed arrived meanwhile.
      for (const { ids, seq, set } of updates.values()) await this.stores.gpodder_feeds.updateMany({ _id: { $in: ids }, seq }, { $set: set });
      if (failed.size) this.logger.info("synced feeds not subscribed yet", { user_id, failed: failed.size });
      // Plays already passed by applyActions while their feed was not subscribed apply now; the newer ones
      // are applyActions' own, which runs next (applySoon).
      const subscribed = add.filter((u) => !failed.has(u));
      if (subscribed.length) await this.applyPlays(user_id, rkeyRange(user_id, 0, user.applied_seq), subscribed);
    }
  },
  /** Applies the play actions received since the last time, then moves the mark. */
  async applyActions(this: GpodderThis, user_id: number): Promise<void> {
    const user: UserDoc = await this.userDoc(user_id);
    if (user.applied_seq >= user.clock) return;
    await this.applyPlays(user_id, rkeyRange(user_id, user.applied_seq, user.clock));
    await this.adapter.updateMany({ _id: user_id, applied_seq: user.applied_seq }, { $set: { applied_seq: user.clock } });
  },
  /**
   * Positions of the play actions in `range` (of devices, not this server's own) written here, in a few calls
   * whatever their number. Only the actions of the library's feeds (of those `only` names) are read: a history
   * of feeds not subscribed here costs no read.
   */
  async applyPlays(this: GpodderThis, user_id: number, range: Query, only?: string[]): Promise<void> {
    const feeds: SyncFeed[] = await syncFeeds(this.broker, { user_id });
    // A feed's former URLs (it moved) too: actions sent before the move name them.
    const known = new Set(feeds.flatMap((f) => [f.feed_url, ...(f.former_urls ?? [])]));
    const podcasts = only ? only.filter((u) => known.has(u)) : [...known];
    if (!podcasts.length) return;
    const actions: ActionDoc[] = await this.stores.gpodder_actions.find({ query: { ...range, podcast: { $in: podcasts }, action: "play" } });
    const states: SyncEpisodeState[] = actions
      .filter((a) => !a.here && a.position !== null)
      .map((a) => ({
        podcast_url: a.podcast,
        episode_url: a.episode,
        ...(a.guid ? { guid: a.guid } : {}),
        position: a.position!,
        total: a.total ?? 0,
        completed: !!a.total && a.position! >= a.total,
        timestamp: `${a.timestamp}Z`,
      }));
    for (let i = 0; i < states.length; i += STATE_BATCH) {
      await applySyncStates(this.broker, { user_id, feeds, states: states.slice(i, i + STATE_BATCH), origin: ORIGIN });
    }
  },
};
