/**
 * The episodes service's in-memory indexes (catalog-index.ts, state-cache.ts) and how they stay true:
 * every write of an episode or of a user's states goes through catalogChanged / statesChanged, which
 * re-read the written documents from the store. With MONGO_URI several replicas of this service may
 * run: each change is also broadcast, and every other replica re-reads the same documents.
 */
import type { Context } from "moleculer";
import { config } from "../../shared/config";
import type { CatalogChangedEvent, StatesChangedEvent } from "../../shared/contracts/episodes";
import type { SubscriptionView } from "../../shared/contracts/podcasts";
import { CATALOG_FIELDS, CatalogIndex, type CatalogRow, newestFirst, toRow } from "./catalog-index";
import { type EpisodeDoc, type EpisodeStateDoc, cutoffTime, escapeRegex } from "./model";
import { StateCache, type UserStates } from "./state-cache";

/** Search terms whose matches are kept (until the catalogue changes). */
const SEARCH_TERMS = 16;

export const indexMethods: Record<string, any> = {
  /** Builds the catalogue rows of every episode (at start-up); descriptions stay in the store. */
  async loadCatalog(this: any): Promise<void> {
    const started = Date.now();
    // Row by row from the store: the projected documents are never all in the heap beside the rows
    // (an array of every projected document, then the rows, was the start-up peak).
    await this.forEachDoc(this.adapter, CATALOG_FIELDS, (d: Pick<EpisodeDoc, "_id" | (typeof CATALOG_FIELDS)[number]>) => this.catalog.upsert([toRow(d)]));
    this.logger.info("episode catalogue indexed", { episodes: this.catalog.size, ms: Date.now() - started });
  },
  /** These episodes were written (or deleted): their rows are read again, here and on every other replica. */
  async catalogChanged(this: any, episode_ids: number[], announce = true): Promise<void> {
    if (!episode_ids.length) return;
    // Once the search filter is started (the first search), it learns the new descriptions' trigrams; the
    // rows never keep them. Before, buildGrams will stream them from the store with every other one.
    const grams = this.gramsBuilt !== null;
    const docs: EpisodeDoc[] = await this.findByIds(this.adapter, episode_ids, grams ? [...CATALOG_FIELDS, "description"] : CATALOG_FIELDS);
    if (grams) for (const d of docs) this.catalog.addText(d.podcast_id, d.description);
    const found: CatalogRow[] = docs.map(toRow);
    const present = new Set(found.map((r) => r._id));
    this.catalog.upsert(found);
    this.catalog.remove(episode_ids.filter((i) => !present.has(i)));
    if (announce) this.broker.broadcast("episodes.catalog_changed", { episode_ids } satisfies CatalogChangedEvent);
  },
  /** Removes episodes and every user's states of them; each holder's cached states are told. */
  async removeEpisodes(this: any, episode_ids: number[]): Promise<void> {
    const holders: { user_id: number }[] = await this.findFields(this.stores.episode_states, { episode_id: { $in: episode_ids } }, ["user_id"]);
    await this.adapter.removeMany({ _id: { $in: episode_ids } });
    try {
      await this.stores.episode_states.removeMany({ episode_id: { $in: episode_ids } });
    } finally {
      for (const user_id of new Set(holders.map((h) => h.user_id))) await this.statesChanged(user_id, episode_ids);
    }
  },
  /** Every state of one user (from memory after the first read). */
  userStates(this: any, user_id: number): Promise<UserStates> {
    return this.stateCache.get(user_id, () => this.stores.episode_states.find({ query: { user_id } }));
  },
  /** These states of the user were written (episode_ids null: any of them, e.g. a bulk delete). */
  async statesChanged(this: any, user_id: number, episode_ids: number[] | null, announce = true): Promise<void> {
    const cache: StateCache = this.stateCache;
    if (episode_ids === null || !cache.has(user_id)) cache.drop(user_id);
    else {
      cache.writing(user_id);
      const found: EpisodeStateDoc[] = await this.findByIds(this.stores.episode_states, episode_ids.map((e) => `${user_id}:${e}`));
      const present = new Set(found.map((s) => s.episode_id));
      cache.apply(user_id, found, episode_ids.filter((e) => !present.has(e)));
    }
    if (announce) this.broker.broadcast("episodes.states_changed", { user_id, episode_ids } satisfies StatesChangedEvent);
  },
  /**
   * The catalogue rows of these subscriptions that their subscriber sees (cutoffs applied), one list per
   * podcast, newest first, without copying the catalogue's own lists (read them, never change them).
   */
  visibleLists(this: any, subs: SubscriptionView[], since: number | null = null): (readonly CatalogRow[])[] {
    return subs.map((s) => {
      const cutoff = cutoffTime(s.feed_cutoff_days);
      return this.catalog.podcastSince(s.podcast_id, cutoff === null ? since : since === null ? cutoff : Math.max(cutoff, since));
    });
  },
  /** The search filter, on the first search: every title, and every description streamed from the store once (none kept). */
  async buildGrams(this: any): Promise<void> {
    this.catalog.startGrams();
    await this.forEachDoc(this.adapter, ["podcast_id", "description"], (d: Pick<EpisodeDoc, "podcast_id" | "description">) => this.catalog.addText(d.podcast_id, d.description));
  },
  /**
   * The page (offset, limit) of every episode these subscribers see published after `since` (ms; null: any
   * date), newest first as "-pub_date, -_id", and how many there are: each podcast's list runs newest
   * first, so its first offset + limit rows hold all of the page it can give.
   */
  newestVisible(this: any, subs: SubscriptionView[], since: number | null, offset: number, limit: number): { page: CatalogRow[]; total: number } {
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
  async searchCatalog(this: any, term: string): Promise<Map<number, CatalogRow[]>> {
    const cache: Map<string, { version: number; hits: Map<number, CatalogRow[]> }> = this.searchCache;
    const kept = cache.get(term);
    if (kept && kept.version === this.catalog.version) return kept.hits;
    const version = this.catalog.version;
    this.gramsBuilt ??= this.buildGrams();
    await this.gramsBuilt;
    const re = new RegExp(escapeRegex(term), "i");
    // Podcasts whose texts lack one of the term's trigrams are not scanned.
    const scope = this.catalog.podcastIds().filter((podcast_id: number) => this.catalog.mayContain(podcast_id, term));
    const inText = new Set<number>(
      scope.length ? (await this.findFields(this.adapter, { podcast_id: { $in: scope }, description: { $regex: re } }, ["podcast_id"])).map((d: { _id: number }) => d._id) : [],
    );
    const hits = new Map<number, CatalogRow[]>();
    for (const podcast_id of scope) {
      const found = this.catalog.podcast(podcast_id).filter((r: CatalogRow) => re.test(r.title) || inText.has(r._id));
      if (found.length) hits.set(podcast_id, found);
    }
    cache.delete(term);
    cache.set(term, { version, hits });
    while (cache.size > SEARCH_TERMS) cache.delete(cache.keys().next().value as string);
    return hits;
  },
};

export const indexEvents: Record<string, any> = {
  /** A restore replaced every collection under the service: the indexes start again from the store. */
  async "backup.restored"(this: any) {
    createIndexes(this);
    await this.loadCatalog();
  },
  /** Another replica wrote episodes: read them again (this node's own writes are already in). */
  "episodes.catalog_changed": {
    params: { episode_ids: { type: "array", items: "number" } },
    async handler(this: any, ctx: Context<CatalogChangedEvent>) {
      if (ctx.nodeID !== this.broker.nodeID) await this.catalogChanged(ctx.params.episode_ids, false);
    },
  },
  "episodes.states_changed": {
    params: { user_id: "number", episode_ids: { type: "array", items: "number", nullable: true } },
    async handler(this: any, ctx: Context<StatesChangedEvent>) {
      if (ctx.nodeID !== this.broker.nodeID) await this.statesChanged(ctx.params.user_id, ctx.params.episode_ids, false);
    },
  },
};

/** Fresh indexes for a service instance (created()). */
export function createIndexes(svc: any): void {
  svc.catalog = new CatalogIndex();
  svc.stateCache = new StateCache(config.stateCacheStates);
  svc.searchCache = new Map();
  svc.gramsBuilt = null;
}
