/**
 * The inbox: the episodes of a user's subscriptions published after they subscribed that they have not yet
 * touched, newest first, to triage. Computed when read, by exclusion, so that playing (any position, a listen
 * date, completed), saving, queueing or downloading takes an episode out by itself; dismissing stores a
 * record in `inbox_dismissals` (this service's; removed with the user, and with the subscription). The
 * podcast's episode filter (shared/episode-filter.ts) applies: an episode it rejects is never in the inbox.
 *
 * Whatever the library's size a read costs three service calls (the subscriptions with their filters, the
 * queue, the downloads) and runs on the in-memory catalogue and states; only the page's documents are read
 * whole, and descriptions only for the podcasts whose filter has words or an expression (one read of those
 * not judged yet; a verdict is kept until its episode changes).
 */
import type { ServiceActionsSchema } from "moleculer";
import { BadRequestError } from "../../shared/errors";
import { isDuplicateKeyError } from "../../shared/db.mixin";
import { type EpisodeFilter, passesFilter, readsText } from "../../shared/episode-filter";
import { queuePositions, type QueuePositionsResult } from "../../shared/contracts/queue";
import { downloadedIds } from "../../shared/contracts/downloads";
import { InboxAnswer, InboxCountAnswer, InboxDismissAnswer } from "../../shared/contracts/episodes";
import type { SubscriptionView } from "../../shared/contracts/podcasts";
import type { Caller } from "../../shared/contracts/call";
import type { Ctx } from "../../shared/service-types";
import { type CatalogRow, newestFirst } from "./catalog-index";
import { type EpisodeDoc, type EpisodeStateDoc, id, paging, type PagingParams, type Row, visibleTo } from "./model";
import type { UserStates } from "./state-cache";
import type { EpisodesThis } from "./this";

/** A dismissed episode of a user's inbox; _id is "<user_id>:<episode_id>". */
export interface InboxDismissalDoc {
  _id: string;
  user_id: number;
  podcast_id: number;
  episode_id: number;
  dismissed_at: Date;
}

/** Any trace of listening or keeping: such an episode has left the inbox. */
function touched(st: EpisodeStateDoc | undefined): boolean {
  return !!st && (st.completed || st.listen_duration > 0 || !!st.last_listened_at || st.saved);
}

/**
 * Filter verdicts by filter and episode. Keyed by the catalogue's row: a written episode gets a new row, so
 * its verdicts go with the old one (and with the rows of episodes removed) without any bookkeeping.
 */
const verdicts = new Map<string, WeakMap<CatalogRow, boolean>>();

function verdictsOf(f: EpisodeFilter): WeakMap<CatalogRow, boolean> {
  const key = JSON.stringify(f);
  let kept = verdicts.get(key);
  if (!kept) {
    // Filters no one has any more would pile up: a bound far above the filters in use.
    if (verdicts.size >= 10_000) verdicts.clear();
    verdicts.set(key, (kept = new WeakMap()));
  }
  return kept;
}

/**
 * The page (offset, limit) of lists that each run newest first, merged newest first: a heap of the lists' heads
 * popped offset + limit times, so a first page of 35,000 episodes in 1,000 podcasts sorts none of them.
 */
export function newestPage<T extends { ep: CatalogRow }>(lists: T[][], offset: number, limit: number): T[] {
  const heap = lists.filter((list) => list.length).map((list) => ({ list, at: 0 }));
  const before = (x: (typeof heap)[number], y: (typeof heap)[number]) => newestFirst(x.list[x.at].ep, y.list[y.at].ep) < 0;
  const down = (i: number) => {
    for (;;) {
      const [l, r] = [2 * i + 1, 2 * i + 2];
      let m = i;
      if (l < heap.length && before(heap[l], heap[m])) m = l;
      if (r < heap.length && before(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  const out: T[] = [];
  for (let n = 0; n < offset + limit && heap.length; n++) {
    const top = heap[0];
    if (n >= offset) out.push(top.list[top.at]);
    // A list run out leaves the heap: the last one takes its place.
    if (++top.at === top.list.length) {
      heap[0] = heap[heap.length - 1];
      heap.pop();
    }
    down(0);
  }
  return out;
}

export const inboxMethods = {
  /**
   * The rows the subscriptions' filters let through. The duration comes from the catalogue; a filter with
   * words or an expression reads titles and descriptions of the rows not judged yet, in one read.
   */
  async passingFilters(this: EpisodesThis, rows: Row<CatalogRow>[]): Promise<Row<CatalogRow>[]> {
    const of = new Map<EpisodeFilter, WeakMap<CatalogRow, boolean>>();
    const kept = (f: EpisodeFilter) => of.get(f) ?? of.set(f, verdictsOf(f)).get(f)!;
    const unjudged = rows.filter((r) => readsText(r.sub.filters) && !kept(r.sub.filters!).has(r.ep));
    if (unjudged.length) {
      const docs: Pick<EpisodeDoc, "_id" | "title" | "description" | "duration">[] = await this.findByIds(
        this.adapter,
        unjudged.map((r) => r.ep._id),
        ["title", "description", "duration"],
      );
      const byId = new Map(docs.map((d) => [d._id, d]));
      for (const r of unjudged) {
        const doc = byId.get(r.ep._id);
        const pass = !!doc && passesFilter(r.sub.filters, { title: doc.title ?? "", description: doc.description, duration: doc.duration ?? 0 });
        kept(r.sub.filters!).set(r.ep, pass);
      }
    }
    return rows.filter((r) => {
      const f = r.sub.filters;
      if (!f) return true;
      if (readsText(f)) return kept(f).get(r.ep) ?? false;
      return passesFilter(f, { title: r.ep.title, description: null, duration: r.ep.duration });
    });
  },
  /** The user's inbox (of one podcast, with podcast_id) podcast by podcast, each list newest first: see the file's comment. */
  async inboxLists(this: EpisodesThis, ctx: Caller, user_id: number, podcast_id?: number): Promise<Row<CatalogRow>[][]> {
    const [subs, queued, downloaded, dismissed, states]: [
      Map<number, SubscriptionView>,
      QueuePositionsResult,
      number[],
      Pick<InboxDismissalDoc, "episode_id">[],
      UserStates,
    ] = await Promise.all([
      this.subscriptionsOf(ctx, user_id),
      queuePositions(ctx, { user_id }),
      downloadedIds(ctx, { user_id }),
      this.findFields(this.stores.inbox_dismissals, { user_id }, ["episode_id"]),
      this.userStates(user_id),
    ]);
    const gone = new Set([...Object.keys(queued).map(Number), ...downloaded, ...dismissed.map((d) => d.episode_id)]);
    const rows: Row<CatalogRow>[] = [];
    for (const sub of subs.values()) {
      if (sub.subscribed_at === undefined || (podcast_id !== undefined && sub.podcast_id !== podcast_id)) continue;
      // Published after the subscription (and within the feed cutoff): a prefix of the podcast's newest-first list.
      for (const ep of this.visibleLists([sub], sub.subscribed_at)[0]) {
        const st = states.byEpisode.get(ep._id);
        if (!gone.has(ep._id) && !touched(st)) rows.push({ ep, sub, st });
      }
    }
    const lists = new Map<number, Row<CatalogRow>[]>();
    for (const r of await this.passingFilters(rows)) {
      const list = lists.get(r.ep.podcast_id);
      if (list) list.push(r);
      else lists.set(r.ep.podcast_id, [r]);
    }
    return [...lists.values()];
  },
};

export const inboxActions: ServiceActionsSchema = {
  /** GET /api/data/inbox */
  inbox: {
    idempotent: true,
    params: { user_id: id, ...paging },
    response: InboxAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<PagingParams & { user_id: number }>): Promise<InboxAnswer> {
      const { user_id, offset = 0, limit = 50 } = ctx.params;
      const lists = await this.inboxLists(ctx, user_id);
      const page: Row[] = await this.withDocs(newestPage(lists, offset, limit));
      // Downloaded episodes are not in the inbox: none of the page is.
      const none = new Set<number>();
      return {
        episodes: page.map((r) => ({ ...this.listItem(r.ep, r.sub, r.st, none), podcastartwork: r.sub.artwork_url ?? "" })),
        total: lists.reduce((n, l) => n + l.length, 0),
      };
    },
  },
  /** GET /api/data/inbox/count */
  inbox_count: {
    idempotent: true,
    params: { user_id: id },
    response: InboxCountAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<{ user_id: number }>): Promise<InboxCountAnswer> {
      return { count: (await this.inboxLists(ctx, ctx.params.user_id)).reduce((n, l) => n + l.length, 0) };
    },
  },
  /**
   * POST /api/data/inbox/dismiss: these episodes (those of the user's podcasts; the others count as failed),
   * or with podcast_id every episode of that podcast in the inbox now (404 unless subscribed). Repeating it changes nothing.
   */
  inbox_dismiss: {
    params: {
      user_id: id,
      episode_ids: { type: "array", items: id, min: 1, max: 1000, optional: true },
      podcast_id: { ...id, optional: true },
    },
    response: InboxDismissAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<{ user_id: number; episode_ids?: number[]; podcast_id?: number }>): Promise<InboxDismissAnswer> {
      const { user_id, episode_ids, podcast_id } = ctx.params;
      if (!episode_ids === (podcast_id === undefined)) throw new BadRequestError("Send either episode_ids or podcast_id");
      let targets: CatalogRow[];
      let failed = 0;
      if (podcast_id !== undefined) {
        await this.access(ctx, user_id, podcast_id);
        targets = (await this.inboxLists(ctx, user_id, podcast_id)).flat().map((r) => r.ep);
      } else {
        const subs = await this.subscriptionsOf(ctx, user_id);
        const wanted = [...new Set(episode_ids)];
        targets = wanted.map((e) => this.catalog.get(e)).filter((ep): ep is CatalogRow => !!ep && visibleTo(ep, subs.get(ep.podcast_id)));
        failed = wanted.length - targets.length;
      }
      const store = this.stores.inbox_dismissals;
      const known = new Set(
        (
          await this.findByIds(
            store,
            targets.map((ep) => `${user_id}:${ep._id}`),
            ["episode_id"],
          )
        ).map((d: Pick<InboxDismissalDoc, "episode_id">) => d.episode_id),
      );
      const now = new Date();
      const fresh: InboxDismissalDoc[] = targets
        .filter((ep) => !known.has(ep._id))
        .map((ep) => ({ _id: `${user_id}:${ep._id}`, user_id, podcast_id: ep.podcast_id, episode_id: ep._id, dismissed_at: now }));
      try {
        if (fresh.length) await store.insertMany(fresh);
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        // A concurrent dismissal stored some (the batch was refused whole): one by one, skipping those.
        for (const doc of fresh) {
          await store.insert(doc).catch((e: unknown) => {
            if (!isDuplicateKeyError(e)) throw e;
          });
        }
      }
      return { dismissed: targets.length, failed };
    },
  },
};
