/**
 * The episodes service's in-memory indexes (catalog-index.ts, state-cache.ts) and how they stay true:
 * every write of an episode or of a user's states goes through catalogChanged / statesChanged, which
 * re-read the written documents from the store. With MONGO_URI several replicas of this service may
 * run: each change is also broadcast, and every other replica re-reads the same documents.
 *
 * A re-read that an older one overtakes is not applied over it (a ticket per episode, a write count per
 * user). A broadcast can be missed (sent while a replica loaded its catalogue, or while NATS was down):
 * every catalogue write takes the next value of a change mark in the store, broadcast with it; a replica
 * knows the mark its catalogue holds every change up to, and reloads when the store's mark stays ahead
 * (at once after its start and after a transporter reconnect, else after two checks in a row).
 */
import type { ServiceEvents } from "moleculer";
import { COUNTERS_COLLECTION } from "../../shared/backup-format";
import { config } from "../../shared/config";
import type { CatalogChangedEvent, StatesChangedEvent } from "../../shared/contracts/episodes";
import { episodesCatalogChanged, episodesStatesChanged } from "../../shared/contracts/episodes";
import { backupRestored } from "../../shared/contracts/backups";
import type { Ctx, Store } from "../../shared/service-types";
import { CATALOG_FIELDS, CatalogIndex, type CatalogRow, newestFirst, toRow } from "./catalog-index";
import { type EpisodeDoc, type EpisodeStateDoc, cutoffTime, escapeRegex, idSlices } from "./model";
import { StateCache, type UserStates } from "./state-cache";
import type { CutoffView, EpisodesIndexes, EpisodesThis } from "./this";

/** Search terms whose matches are kept (until the catalogue changes). */
const SEARCH_TERMS = 16;
/** The counters document of the catalogue's change mark (field seq). */
const CATALOG_MARK = "episodes_catalog_mark";
/** Marks applied out of order that a replica remembers before it stops waiting for the missing ones and reloads. */
const MARKS_AHEAD = 10_000;

/** A document of the counters collection: the catalogue's mark is one (_id CATALOG_MARK). */
type CounterDoc = { _id: string; seq: number };
/** The counters collection, whose documents the db mixin types loosely (sequences and marks all have this shape). */
function counters(svc: EpisodesThis): Store<CounterDoc> {
  return svc.stores[COUNTERS_COLLECTION] as Store<CounterDoc>;
}
/** The catalogue row's fields of an episode, and its description when the search filter is started (catalogChanged). */
type RereadDoc = Pick<EpisodeDoc, "_id" | (typeof CATALOG_FIELDS)[number]> & Partial<Pick<EpisodeDoc, "description">>;

export const indexMethods = {
  /**
   * Builds the catalogue rows of every episode into a fresh index (at start-up, and when a replica finds
   * it missed changes), then swaps it in; descriptions stay in the store. Episodes changed while it loaded
   * are read again into the new index. The mark read before the load is the one the new index holds.
   */
  loadCatalog(this: EpisodesThis): Promise<void> {
    this.catalogLoading ??= (async () => {
      const started = Date.now();
      const mark = await this.storedCatalogMark();
      const fresh = new CatalogIndex();
      // Caches keyed by the catalogue's version (memos of select_episodes) must not meet an old version number.
      fresh.version = this.catalog.version + 1;
      this.changedWhileLoading = new Set<number>();
      try {
        // Row by row from the store: the projected documents are never all in the heap beside the rows
        // (an array of every projected document, then the rows, was the start-up peak).
        await this.forEachDoc(this.adapter, CATALOG_FIELDS, (d) => fresh.upsert([toRow(d)]));
        this.catalog = fresh;
        // The search filter and its kept answers describe the old index: built again at the next search.
        this.gramsBuilt = null;
        this.searchCache.clear();
        this.catalogMark = Math.max(this.catalogMark, mark);
        for (const m of this.marksAhead) if (m <= this.catalogMark) this.marksAhead.delete(m);
        this.advanceMark();
        this.logger.info("episode catalogue indexed", { episodes: fresh.size, mark, ms: Date.now() - started });
      } finally {
        const again: number[] = [...this.changedWhileLoading];
        this.changedWhileLoading = null;
        this.catalogLoading = null;
        if (again.length) await this.catalogChanged(again, false);
      }
    })();
    return this.catalogLoading;
  },
  /** The store's catalogue change mark (0 before the first write). */
  async storedCatalogMark(this: EpisodesThis): Promise<number> {
    const doc = await counters(this).findOne({ _id: CATALOG_MARK });
    return doc?.seq ?? 0;
  },
  /** A write with this mark is in the catalogue: the held mark moves up while the next ones are in. */
  noteMark(this: EpisodesThis, mark: number | undefined): void {
    if (mark === undefined || mark <= this.catalogMark) return;
    this.marksAhead.add(mark);
    this.advanceMark();
  },
  advanceMark(this: EpisodesThis): void {
    while (this.marksAhead.delete(this.catalogMark + 1)) this.catalogMark++;
  },
  /**
   * Reloads the catalogue when the store's mark is ahead of the one it holds: at once (`now`: after the
   * start, after a reconnect), else only when it still is at the next check (a broadcast may be on its way).
   */
  async reconcileCatalog(this: EpisodesThis, now: boolean): Promise<void> {
    if (this.catalogLoading) return;
    const stored = await this.storedCatalogMark();
    const behind = stored > this.catalogMark;
    const stuck = this.behindAt !== null && this.catalogMark < this.behindAt;
    this.behindAt = behind ? stored : null;
    if (behind && (now || stuck || this.marksAhead.size > MARKS_AHEAD)) {
      this.logger.info("episode catalogue behind the store: reloading", { held: this.catalogMark, stored });
      await this.loadCatalog();
    }
  },
  /**
   * These episodes were written (or deleted): their rows are read again, here and (announce: the write was
   * this replica's) on every other replica, with the change mark the write took.
   */
  async catalogChanged(this: EpisodesThis, episode_ids: number[], announce = true, mark?: number): Promise<void> {
    if (!episode_ids.length) return;
    if (announce) mark = (await this.incrementDoc(counters(this), CATALOG_MARK, { seq: 1 })).seq;
    for (const i of episode_ids) this.changedWhileLoading?.add(i);
    // Each episode's newest re-read wins: an older one that answers later is not applied over it.
    const ticket = ++this.rereadSeq;
    for (const i of episode_ids) this.rereads.set(i, ticket);
    try {
      // Once the search filter is started (the first search), it learns the new descriptions' trigrams; the
      // rows never keep them. Before, buildGrams will stream them from the store with every other one.
      const grams = this.gramsBuilt !== null;
      const docs: RereadDoc[] = await this.findByIds(this.adapter, episode_ids, grams ? [...CATALOG_FIELDS, "description"] : CATALOG_FIELDS);
      const mine = (i: number) => this.rereads.get(i) === ticket;
      if (grams) for (const d of docs) this.catalog.addText(d.podcast_id, d.description);
      const found: CatalogRow[] = docs.filter((d) => mine(d._id)).map(toRow);
      const present = new Set(docs.map((d) => d._id));
      this.catalog.upsert(found);
      this.catalog.remove(episode_ids.filter((i) => !present.has(i) && mine(i)));
    } finally {
      for (const i of episode_ids) if (this.rereads.get(i) === ticket) this.rereads.delete(i);
    }
    this.noteMark(mark);
    if (announce) void episodesCatalogChanged.broadcast(this.broker, { episode_ids, mark });
  },
  /** Removes episodes and every user's states of them; each holder's cached states are told. */
  async removeEpisodes(this: EpisodesThis, episode_ids: number[]): Promise<void> {
    const holders = await this.findFields(this.stores.episode_states, { episode_id: { $in: episode_ids } }, ["user_id"]);
    await this.adapter.removeMany({ _id: { $in: episode_ids } });
    try {
      await this.stores.episode_states.removeMany({ episode_id: { $in: episode_ids } });
    } finally {
      for (const user_id of new Set(holders.map((h) => h.user_id))) await this.statesChanged(user_id, episode_ids);
    }
  },
  /** Every state of one user (from memory after the first read). */
  userStates(this: EpisodesThis, user_id: number): Promise<UserStates> {
    return this.stateCache.get(user_id, () => this.stores.episode_states.find({ query: { user_id } }));
  },
  /** These states of the user were written (episode_ids null: any of them, e.g. a bulk delete). */
  async statesChanged(this: EpisodesThis, user_id: number, episode_ids: number[] | null, announce = true): Promise<void> {
    const cache = this.stateCache;
    if (episode_ids === null || !cache.has(user_id)) cache.drop(user_id);
    else {
      const write = cache.writing(user_id);
      const found: EpisodeStateDoc[] = await this.findByIds(
        this.stores.episode_states,
        episode_ids.map((e) => `${user_id}:${e}`),
      );
      const present = new Set(found.map((s) => s.episode_id));
      // A later write's re-read may have been applied already: this older answer would undo it, so the user is read whole again.
      if (cache.lastWrite(user_id) !== write) cache.drop(user_id);
      else
        cache.apply(
          user_id,
          found,
          episode_ids.filter((e) => !present.has(e)),
        );
    }
    if (!announce) return;
    for (const ids of episode_ids === null ? [null] : idSlices(episode_ids)) void episodesStatesChanged.broadcast(this.broker, { user_id, episode_ids: ids });
  },
  /**
   * The catalogue rows of these subscriptions that their subscriber sees (cutoffs applied), one list per
   * podcast, newest first, without copying the catalogue's own lists (read them, never change them).
   */
  visibleLists(this: EpisodesThis, subs: CutoffView[], since: number | null = null): (readonly CatalogRow[])[] {
    return subs.map((s) => {
      const cutoff = cutoffTime(s.feed_cutoff_days);
      return this.catalog.podcastSince(s.podcast_id, cutoff === null ? since : since === null ? cutoff : Math.max(cutoff, since));
    });
  },
  /** The search filter, on the first search: every title, and every description streamed from the store once (none kept). */
  async buildGrams(this: EpisodesThis): Promise<void> {
    this.catalog.startGrams();
    await this.forEachDoc(this.adapter, ["podcast_id", "description"], (d) => this.catalog.addText(d.podcast_id, d.description));
  },
  /**
   * The page (offset, limit) of every episode these subscribers see published after `since` (ms; null: any
   * date), newest first as "-pub_date, -_id", and how many there are: each podcast's list runs newest
   * first, so its first offset + limit rows hold all of the page it can give.
   */
  newestVisible(this: EpisodesThis, subs: CutoffView[], since: number | null, offset: number, limit: number): { page: CatalogRow[]; total: number } {
    const lists: (readonly CatalogRow[])[] = this.visibleLists(subs, since);
    const heads: CatalogRow[] = [];
    let total = 0;
    for (const rows of lists) {
      total += rows.length;
      for (let i = 0; i < Math.min(rows.length, offset + limit); i++) heads.push(rows[i]);
    }
    return { page: heads.sort(newestFirst).slice(offset, offset + limit), total };
  },
  /**
   * The episodes whose title or description contains `term` (case-insensitive, as a MongoDB $regex of it
   * would), by podcast, newest first. Titles are tested in memory, descriptions by the store (one query
   * over the podcasts whose texts may hold the term). Kept per term until the catalogue changes: paging
   * through results and repeated searches scan the texts once.
   */
  async searchCatalog(this: EpisodesThis, term: string): Promise<Map<number, CatalogRow[]>> {
    const cache = this.searchCache;
    const kept = cache.get(term);
    if (kept && kept.version === this.catalog.version) return kept.hits;
    const version = this.catalog.version;
    this.gramsBuilt ??= this.buildGrams();
    await this.gramsBuilt;
    const re = new RegExp(escapeRegex(term), "i");
    // Podcasts whose texts lack one of the term's trigrams are not scanned.
    const scope = this.catalog.podcastIds().filter((podcast_id) => this.catalog.mayContain(podcast_id, term));
    const inText = new Set<number>(
      scope.length ? (await this.findFields(this.adapter, { podcast_id: { $in: scope }, description: { $regex: re } }, ["podcast_id"])).map((d) => d._id) : [],
    );
    const hits = new Map<number, CatalogRow[]>();
    for (const podcast_id of scope) {
      const found = this.catalog.podcast(podcast_id).filter((r) => re.test(r.title) || inText.has(r._id));
      if (found.length) hits.set(podcast_id, found);
    }
    cache.delete(term);
    cache.set(term, { version, hits });
    while (cache.size > SEARCH_TERMS) cache.delete(cache.keys().next().value as string);
    return hits;
  },
};

export const indexEvents: ServiceEvents = {
  /** A restore replaced every collection under the service: the indexes start again from the store. */
  async [backupRestored.eventName](this: EpisodesThis) {
    createIndexes(this);
    await this.loadCatalog();
  },
  /** Another replica wrote episodes: read them again (this node's own writes are already in). */
  [episodesCatalogChanged.eventName]: {
    params: { episode_ids: { type: "array", items: "number" }, mark: { type: "number", optional: true } },
    async handler(this: EpisodesThis, ctx: Ctx<CatalogChangedEvent>) {
      if (ctx.nodeID !== this.broker.nodeID) await this.catalogChanged(ctx.params.episode_ids, false, ctx.params.mark);
    },
  },
  /** Broadcasts sent before this node was announced never reached it: compare marks once it is. */
  async "$broker.started"(this: EpisodesThis) {
    await this.reconcileCatalog(true);
  },
  /** Broadcasts sent while NATS was away are lost: compare marks after a reconnect. */
  async "$transporter.connected"(this: EpisodesThis, ctx: Ctx<{ wasReconnect: boolean }>) {
    if (ctx.params.wasReconnect) await this.reconcileCatalog(true);
  },
  [episodesStatesChanged.eventName]: {
    params: { user_id: "number", episode_ids: { type: "array", items: "number", nullable: true } },
    async handler(this: EpisodesThis, ctx: Ctx<StatesChangedEvent>) {
      if (ctx.nodeID !== this.broker.nodeID) await this.statesChanged(ctx.params.user_id, ctx.params.episode_ids, false);
    },
  },
};

/** Fresh indexes for a service instance (created()). */
export function createIndexes(svc: EpisodesIndexes): void {
  svc.catalog = new CatalogIndex();
  svc.catalogLoading = null;
  svc.changedWhileLoading = null;
  svc.catalogMark = 0;
  svc.marksAhead = new Set<number>();
  svc.behindAt = null;
  svc.rereads = new Map<number, number>();
  svc.rereadSeq = 0;
  svc.stateCache = new StateCache(config.stateCacheStates);
  svc.searchCache = new Map();
  svc.gramsBuilt = null;
}
