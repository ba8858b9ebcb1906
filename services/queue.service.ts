/**
 * Queue: the `queue` collection, one document per user { _id: user_id, version, items[] } whose array
 * order is the queue order, so positions are always 1..n: no gap and no duplicate position can be
 * stored.
 *
 * A user's queue changes are serialised, never last-write-wins:
 * - within a process, by a per-user promise chain (20 concurrent requests of one user run one by one);
 * - across queue replicas (NATS + MongoDB), by compare-and-set on `version`: a change is written only
 *   if the version it read is still current, otherwise it is read again and re-applied. A per-user
 *   document makes this one atomic single-document update on MongoDB and NeDB alike, with no lock
 *   to leak when a replica dies.
 * Episodes are checked and joined through episodes.select_episodes (one call whatever the length).
 */
import type { ServiceSchema } from "moleculer";
import { DbMixin, isDuplicateKeyError } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { BadRequestError, NotFoundError, ServiceUnavailableError } from "../shared/errors";
import type { SelectedEpisode, EpisodeSelection, EpisodesCreatedEvent, SelectionResult } from "../shared/contracts/episodes";
import { episodeItems, episodesCreated, selectEpisodes } from "../shared/contracts/episodes";
import { autoQueueUsers, subscriberFilters, subscriptionsRemoved } from "../shared/contracts/podcasts";
import { listItemSubject, passesFilter } from "../shared/episode-filter";
import type { Caller } from "../shared/contracts/call";
import type { Ctx, DbThis } from "../shared/service-types";
import type {
  QueueBulkAddParams,
  QueueBulkAddResult,
  QueueLengthParams,
  QueuePositionsParams,
  QueuePositionsResult,
  QueuePreviewParams,
  QueuePreviewResult,
} from "../shared/contracts/queue";
import { QueuedEpisodesAnswer } from "../shared/contracts/queue";
import { DataAnswer, MessageAnswer } from "../shared/contracts/answers";
import type { Static } from "../shared/contracts/answers";

interface QueueItem {
  episode_id: number;
  podcast_id: number;
  queued_at: Date;
}

interface QueueDoc {
  _id: number;
  version: number;
  items: QueueItem[];
}

/** A queue's items and the selection of the episodes among them the user still sees (null: an empty queue). */
interface VisibleQueue {
  items: QueueDoc["items"];
  found: SelectionResult | null;
}

/** Writes lost to another replica before giving up with a 503 (each retry re-reads the queue). */
const MAX_CAS_ATTEMPTS = 20;
/** Most episodes one request may name (bulk add, reorder). */
const MAX_IDS = 5000;

const id = { type: "number", integer: true, positive: true, convert: true };
const idList = { type: "array", max: MAX_IDS, items: { type: "number", integer: true, positive: true, convert: true } };
const episodeParams = { user_id: id, episode_id: id, is_vidsite: { type: "boolean", convert: true, optional: true } };

/** Every state of the given episodes: the queue shows what it holds whatever its play state. */
function onlyThese(episode_ids: number[]): EpisodeSelection {
  return { episode_ids, include_unplayed: true, include_partially_played: true, include_played: true };
}

/**
 * A queued episode as get_queued_episodes lists it: the list item without is_video, plus its place.
 * Built field by field: copying with `{ is_video, ...rest }` costs several times more per item, and this
 * runs for every item of every queue read (bench/RESULTS.md, gateway); the type keeps it in step with the contract.
 */
function queueEntry(
  e: SelectedEpisode,
  queueposition: number,
  queued_at: Date,
): Omit<SelectedEpisode, "is_video"> & { queueposition: number; queuedate: string; queued: true } {
  return {
    episodeid: e.episodeid,
    podcastid: e.podcastid,
    podcastname: e.podcastname,
    episodetitle: e.episodetitle,
    episodepubdate: e.episodepubdate,
    episodedescription: e.episodedescription,
    episodeartwork: e.episodeartwork,
    episodeurl: e.episodeurl,
    episodeduration: e.episodeduration,
    listenduration: e.listenduration,
    completed: e.completed,
    saved: e.saved,
    is_vidsite: e.is_vidsite,
    is_youtube: e.is_youtube,
    downloaded: e.downloaded,
    queueposition,
    queuedate: new Date(queued_at).toISOString(),
    queued: true,
  };
}

/** Queue items as entries, in queue order: an episode hidden since it was queued (feed cutoff) is skipped, and the positions shown stay 1..n. */
function visibleEntries(items: QueueItem[], found: SelectionResult): QueuedEpisodesAnswer["data"] {
  const byId = new Map(found.episodes.map((e) => [e.episodeid, e]));
  return items.filter((i) => byId.has(i.episode_id)).map((i, n) => queueEntry(byId.get(i.episode_id)!, n + 1, i.queued_at));
}

/** A change of a queue: the new items (the same array when nothing changes) and the answer. */
type Mutation<R> = (items: QueueItem[]) => { next: QueueItem[]; result: R };

type EpisodeParams = { user_id: number; episode_id: number; is_vidsite?: boolean };

interface QueueMethods {
  visibleQueue(ctx: Caller, user_id: number, limit?: number): Promise<VisibleQueue>;
  addAll(ctx: Caller, user_id: number, episode_ids: number[]): Promise<QueueBulkAddResult>;
  positions(user_id: number): Promise<QueuePositionsResult>;
  change<R>(user_id: number, mutate: Mutation<R>): Promise<R>;
  inTurn<T>(user_id: number, fn: () => Promise<T>): Promise<T>;
}

type QueueThis = DbThis<QueueDoc> &
  QueueMethods & {
    /** Per user, the tail of the chain of their queue's changes in this process (inTurn). */
    turns: Map<number, Promise<unknown>>;
  };

const QueueService: ServiceSchema<Record<string, never>, QueueThis> = {
  name: "queue",
  mixins: [DbMixin({ name: "queue" })],
  actions: {
    /** POST /api/data/queue_pod: appends an episode; one already queued stays where it is. */
    queue_pod: {
      idempotent: true,
      params: episodeParams,
      response: DataAnswer,
      async handler(this: QueueThis, ctx: Ctx<EpisodeParams>): Promise<Static<typeof DataAnswer>> {
        const { added, failed }: QueueBulkAddResult = await this.addAll(ctx, ctx.params.user_id, [ctx.params.episode_id]);
        if (failed.length) throw new NotFoundError("Episode not found in your podcasts");
        return { data: added.length ? "Episode added to queue" : "Episode already in queue" };
      },
    },
    /** POST /api/data/remove_queued_pod: the positions after it move up by one. */
    remove_queued_pod: {
      params: episodeParams,
      response: DataAnswer,
      async handler(this: QueueThis, ctx: Ctx<EpisodeParams>): Promise<Static<typeof DataAnswer>> {
        await this.change(ctx.params.user_id, (items: QueueItem[]) => {
          const next = items.filter((i) => i.episode_id !== ctx.params.episode_id);
          if (next.length === items.length) throw new NotFoundError("Episode is not in your queue");
          return { next, result: null };
        });
        return { data: "Episode removed from queue" };
      },
    },
    /** POST /api/data/clear_queue */
    clear_queue: {
      params: { user_id: id },
      response: DataAnswer,
      async handler(this: QueueThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof DataAnswer>> {
        await this.change(ctx.params.user_id, (items: QueueItem[]) => ({ next: items.length ? [] : items, result: null }));
        return { data: "Queue cleared" };
      },
    },
    /** POST /api/data/reorder_queue: episode_ids must be exactly the queued episodes, each once. */
    reorder_queue: {
      params: { user_id: id, episode_ids: idList },
      response: MessageAnswer,
      async handler(this: QueueThis, ctx: Ctx<{ user_id: number; episode_ids: number[] }>): Promise<Static<typeof MessageAnswer>> {
        const ids: number[] = ctx.params.episode_ids;
        await this.change(ctx.params.user_id, (items: QueueItem[]) => {
          const byId = new Map(items.map((i) => [i.episode_id, i]));
          if (new Set(ids).size !== ids.length || ids.length !== items.length || !ids.every((e) => byId.has(e))) {
            throw new BadRequestError("episode_ids must list every queued episode exactly once");
          }
          return { next: ids.map((e) => byId.get(e)!), result: null };
        });
        return { message: "Queue reordered" };
      },
    },
    /** GET /api/data/get_queued_episodes: queue items in queue order (a constant number of service calls whatever the length). */
    get_queued_episodes: {
      idempotent: true,
      params: { user_id: id },
      response: QueuedEpisodesAnswer,
      async handler(this: QueueThis, ctx: Ctx<{ user_id: number }>): Promise<QueuedEpisodesAnswer> {
        const { items, found }: VisibleQueue = await this.visibleQueue(ctx, ctx.params.user_id);
        return { data: items.length ? visibleEntries(items, found!) : [] };
      },
    },

    // --- Internal actions (not in the route table) ---

    /** bulk_queue_episodes of the episodes service: appends the visible ones in order. */
    bulk_add: {
      visibility: "public",
      params: { user_id: id, episode_ids: idList },
      async handler(this: QueueThis, ctx: Ctx<QueueBulkAddParams>): Promise<QueueBulkAddResult> {
        return this.addAll(ctx, ctx.params.user_id, ctx.params.episode_ids);
      },
    },
    /** How many queued episodes the user still sees (get_stats): get_queued_episodes' length, without building its items. */
    visible_length: {
      visibility: "public",
      params: { user_id: id },
      async handler(this: QueueThis, ctx: Ctx<QueueLengthParams>): Promise<number> {
        const { found }: VisibleQueue = await this.visibleQueue(ctx, ctx.params.user_id, 0);
        return found?.total ?? 0;
      },
    },
    /**
     * home_overview's queue section: the first entries as get_queued_episodes lists them, the count, and which of
     * the page's episodes are queued; the episodes of the rest of the queue are counted, not read.
     */
    preview: {
      visibility: "public",
      params: { user_id: id, limit: { type: "number", integer: true, min: 1, max: 50 }, episode_ids: idList },
      async handler(this: QueueThis, ctx: Ctx<QueuePreviewParams>): Promise<QueuePreviewResult> {
        const { user_id, limit, episode_ids } = ctx.params;
        const doc: QueueDoc | null = await this.adapter.findOne({ _id: user_id });
        const items = doc?.items ?? [];
        if (!items.length) return { entries: [], count: 0, queued: [] };
        // Twice the entries shown: a few queued episodes hidden since (feed cutoff) are skipped, as get_queued_episodes does.
        const head = items.slice(0, 2 * limit);
        const [first, all] = await selectEpisodes(ctx, {
          user_id,
          selections: [onlyThese(head.map((i) => i.episode_id)), onlyThese(items.map((i) => i.episode_id))],
          limit: head.length,
        });
        const entries = visibleEntries(head, first).slice(0, limit);
        const inQueue = new Set(items.map((i) => i.episode_id));
        return { entries, count: all.total, queued: episode_ids.filter((e) => inQueue.has(e)) };
      },
    },
    /** Where these episodes are in the user's queue (playlist items show queued / queueposition). */
    positions: {
      visibility: "public",
      params: { user_id: id, episode_ids: { ...idList, optional: true } },
      async handler(this: QueueThis, ctx: Ctx<QueuePositionsParams>): Promise<QueuePositionsResult> {
        const all: QueuePositionsResult = await this.positions(ctx.params.user_id);
        if (!ctx.params.episode_ids) return all;
        const out: QueuePositionsResult = {};
        for (const e of ctx.params.episode_ids) if (all[e]) out[e] = all[e];
        return out;
      },
    },
  },
  events: {
    /** New episodes of a podcast: to the end of the queue of each subscriber with auto-queue on (in the order the refresh stored them). */
    async [episodesCreated.eventName](this: QueueThis, ctx: Ctx<EpisodesCreatedEvent>) {
      const { podcast_id, episode_ids } = ctx.params;
      const users = await autoQueueUsers(ctx, { podcast_id });
      if (!users.length) return;
      // Each subscriber's episode filter of the podcast chooses among them (their texts read once, only when some filter has one).
      const filters = await subscriberFilters(ctx, { podcast_id, user_ids: users });
      const items = Object.keys(filters).length ? await episodeItems(ctx, { user_id: users[0], episode_ids, include_unsubscribed: true }) : [];
      const passing = (user_id: number): number[] => {
        const kept = new Set(items.filter((i) => passesFilter(filters[user_id], listItemSubject(i))).map((i) => i.episodeid));
        return episode_ids.filter((e) => kept.has(e));
      };
      for (const user_id of users) {
        const ids = filters[user_id] ? passing(user_id) : episode_ids;
        if (ids.length) await this.addAll(ctx, user_id, ids);
      }
    },
    /** A user left a podcast: its episodes leave their queue, the rest closes up. */
    async [subscriptionsRemoved.eventName](this: QueueThis, ctx: Ctx<{ user_id: number; podcast_id: number }>) {
      const { user_id, podcast_id } = ctx.params;
      await this.change(user_id, (items: QueueItem[]) => {
        const next = items.filter((i) => i.podcast_id !== podcast_id);
        return { next: next.length === items.length ? items : next, result: null };
      });
    },
    "user.removed": userRemovedEvent({ adapter: "_id" }),
  },
  methods: {
    /** The user's queue items and the episodes service's selection of those still visible (limit 0: only their count). */
    async visibleQueue(this: QueueThis, ctx: Caller, user_id: number, limit?: number): Promise<VisibleQueue> {
      const doc: QueueDoc | null = await this.adapter.findOne({ _id: user_id });
      const items = doc?.items ?? [];
      if (!items.length) return { items, found: null };
      const [found] = await selectEpisodes(ctx, { user_id, selections: [onlyThese(items.map((i) => i.episode_id))], limit });
      return { items, found };
    },
    /** Appends the episodes the user can see and has not queued; see QueueBulkAddResult. */
    async addAll(this: QueueThis, ctx: Caller, user_id: number, episode_ids: number[]): Promise<QueueBulkAddResult> {
      const wanted = Array.from(new Set(episode_ids));
      // Checked before taking the user's turn, so the serialised part is only a read and a write.
      const [found] = await selectEpisodes(ctx, { user_id, selections: [onlyThese(wanted)] });
      const podcastOf = new Map(found.episodes.map((e) => [e.episodeid, e.podcastid]));
      const failed = wanted.filter((e) => !podcastOf.has(e));
      return this.change(user_id, (items: QueueItem[]) => {
        const queued = new Set(items.map((i) => i.episode_id));
        const added = wanted.filter((e) => podcastOf.has(e) && !queued.has(e));
        const now = new Date();
        const next = added.length ? [...items, ...added.map((e) => ({ episode_id: e, podcast_id: podcastOf.get(e)!, queued_at: now }))] : items;
        return { next, result: { added, already_queued: wanted.filter((e) => queued.has(e)), failed } };
      });
    },
    async positions(this: QueueThis, user_id: number): Promise<QueuePositionsResult> {
      const doc: QueueDoc | null = await this.adapter.findOne({ _id: user_id });
      const out: QueuePositionsResult = {};
      (doc?.items ?? []).forEach((i, n) => (out[i.episode_id] = { position: n + 1, queued_at: new Date(i.queued_at).toISOString() }));
      return out;
    },
    /** Applies a mutation to the user's queue in the user's turn, with compare-and-set on version. */
    async change<R>(this: QueueThis, user_id: number, mutate: Mutation<R>): Promise<R> {
      return this.inTurn(user_id, async () => {
        for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
          const doc: QueueDoc | null = await this.adapter.findOne({ _id: user_id });
          const items = doc?.items ?? [];
          const { next, result } = mutate(items);
          if (next === items) return result;
          if (!doc) {
            try {
              await this.adapter.insert({ _id: user_id, version: 1, items: next });
              return result;
            } catch (err) {
              if (!isDuplicateKeyError(err)) throw err; // another replica created it first: apply again
              continue;
            }
          }
          if (await this.adapter.updateMany({ _id: user_id, version: doc.version }, { $set: { items: next, version: doc.version + 1 } })) return result;
          await new Promise((r) => setTimeout(r, Math.random() * 10 * (attempt + 1))); // lost to another replica
        }
        throw new ServiceUnavailableError("The queue is busy, try again");
      });
    },
    /** Runs fn after every earlier change of this user's queue in this process has finished. */
    async inTurn<T>(this: QueueThis, user_id: number, fn: () => Promise<T>): Promise<T> {
      const turns = this.turns;
      const run = (turns.get(user_id) ?? Promise.resolve()).then(fn);
      const tail = run.catch(() => undefined);
      turns.set(user_id, tail);
      try {
        return await run;
      } finally {
        if (turns.get(user_id) === tail) turns.delete(user_id);
      }
    },
  },
  created(this: QueueThis) {
    this.turns = new Map();
  },
};

export default QueueService;
