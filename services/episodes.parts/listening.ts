/**
 * What a player writes while a person listens, per user: saves, the playback position and history,
 * completion (by hand, in bulk, and automatically near the end), the per user counters, and the
 * bulk operations. Every write acts only on episodes the user sees; another feed's episode is a 404
 * (or, in bulk, a failed id) with the same answer as a missing one.
 */
import type { ServiceActionsSchema } from "moleculer";
import type { QueueBulkAddParams, QueueBulkAddResult } from "../../shared/contracts/queue";
import { bulkAdd } from "../../shared/contracts/queue";
import type { ListeningSettings } from "../../shared/contracts/users";
import { listeningSettings } from "../../shared/contracts/users";
import { NotFoundError } from "../../shared/errors";
import type { Ctx } from "../../shared/service-types";
import type { CatalogRow } from "./catalog-index";
import {
  EPISODE_FILTERS,
  EPISODE_SORTS,
  type EpisodeDoc,
  type EpisodeStateDoc,
  id,
  inIdOrder,
  optionalBool,
  pageRows,
  paging,
  type PagingParams,
  type Row,
  search,
  type SortKey,
  sortOrder,
  time,
} from "./model";
import { AutoCompleteAnswer, BulkAnswer, HistoryAnswer, ListenDurationAnswer, SavedEpisodesAnswer } from "../../shared/contracts/episodes";
import { DetailAnswer } from "../../shared/contracts/answers";
import type { Static } from "../../shared/contracts/answers";
import type { BulkParams, EpisodesThis } from "./this";
import { savedListItem } from "./access";

const one = { episode_id: id, user_id: id, is_vidsite: optionalBool };
const bulk = {
  episode_ids: { type: "array", items: id, max: 1000 },
  user_id: id,
  is_vidsite: optionalBool,
};
const position = { type: "number", min: 0, max: 2147483647, convert: true };
const filter = { type: "enum", values: Object.keys(EPISODE_FILTERS), optional: true };
const SAVED_SORTS: Record<string, SortKey> = { ...EPISODE_SORTS, save_date: (r) => time(r.st?.saved_at) };
const HISTORY_SORTS: Record<string, SortKey> = { ...EPISODE_SORTS, listen_date: (r) => time(r.st?.last_listened_at) };

type OneParams = { episode_id: number; user_id: number; is_vidsite?: boolean };
/** saved_episode_list's and user_history's query (sort_by: a key of their sorts; filter: of EPISODE_FILTERS). */
interface ListParams extends PagingParams {
  user_id: number;
  sort_by?: string;
  sort_order?: "asc" | "desc";
  filter?: string;
  search?: string;
}

/** Does a position this close to the end complete the episode (auto_complete_seconds 0 disables it)? */
export function nearEnd(ep: Pick<EpisodeDoc, "duration">, heard: number, autoCompleteSeconds: number): boolean {
  return autoCompleteSeconds > 0 && ep.duration > 0 && ep.duration - heard <= autoCompleteSeconds;
}

/** One state change of one episode: save, unsave, complete, uncomplete. */
function stateSetter(set: () => Partial<EpisodeStateDoc>, detail: (video: boolean) => string) {
  return {
    params: one,
    response: DetailAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<OneParams>): Promise<Static<typeof DetailAnswer>> {
      const ep: EpisodeDoc = await this.accessibleEpisode(ctx, ctx.params.user_id, ctx.params.episode_id);
      await this.writeStates(ctx.params.user_id, [ep], set());
      return { detail: detail(!!ctx.params.is_vidsite) };
    },
  };
}

/** A bulk state change: the ids the user sees get `set`, the others count as failed. */
function bulkSetter(set: () => Partial<EpisodeStateDoc>, verb: string) {
  return {
    params: bulk,
    response: BulkAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<BulkParams>): Promise<BulkAnswer> {
      const { episodes, failed } = await this.bulkTargets(ctx);
      await this.writeStates(ctx.params.user_id, episodes, set());
      return bulkAnswer(episodes.length, failed, verb);
    },
  };
}

function bulkAnswer(processed: number, failed: number, verb: string): BulkAnswer {
  return { message: `${processed} episode${processed === 1 ? "" : "s"} ${verb}`, processed_count: processed, failed_count: failed };
}

/** The per user counters increment_listen_time and increment_played bump. */
function counter(field: "listen_seconds" | "played", by: number, detail: string) {
  return {
    params: { user_id: id },
    response: DetailAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof DetailAnswer>> {
      await this.upsert(this.stores.listen_counters, ctx.params.user_id, { $inc: { [field]: by } });
      return { detail };
    },
  };
}

export const listeningActions: ServiceActionsSchema = {
  save_episode: stateSetter(
    () => ({ saved: true, saved_at: new Date() }),
    (video) => (video ? "Video saved!" : "Episode saved!"),
  ),
  remove_saved_episode: stateSetter(
    () => ({ saved: false, saved_at: null }),
    (video) => (video ? "Saved video removed." : "Saved episode removed."),
  ),
  mark_episode_completed: stateSetter(
    () => ({ completed: true }),
    () => "Episode marked as completed.",
  ),
  mark_episode_uncompleted: stateSetter(
    () => ({ completed: false }),
    () => "Episode marked as not completed.",
  ),

  /** GET /api/data/saved_episode_list/{user_id}: newest save first unless asked otherwise; total before paging. */
  saved_episode_list: {
    idempotent: true,
    params: { user_id: id, ...paging, sort_by: { type: "enum", values: Object.keys(SAVED_SORTS), optional: true }, sort_order: sortOrder, filter, search },
    response: SavedEpisodesAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<ListParams>): Promise<SavedEpisodesAnswer> {
      const p = ctx.params;
      const rows = (await this.joinedStates(ctx, p.user_id, (st) => st.saved)).filter(EPISODE_FILTERS[p.filter ?? "all"]);
      const cut = pageRows(rows, p, SAVED_SORTS[p.sort_by ?? "save_date"], "desc");
      const [page, total]: [Row[], number] = [await this.withDocs(cut.page), cut.total];
      const ids = page.map((r) => r.ep._id);
      const [queue, downloaded] = await Promise.all([this.queueOf(ctx, p.user_id, ids), this.downloadedOf(ctx, p.user_id, ids)]);
      const saved_episodes = page.map((r) => savedListItem(this.queueItem(r, queue[r.ep._id], downloaded)));
      return { saved_episodes, total };
    },
  },

  /** POST /api/data/record_podcast_history: the position reached; the episode enters the history now. */
  record_podcast_history: {
    idempotent: true,
    params: { ...one, episode_pos: position },
    response: DetailAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<OneParams & { episode_pos: number }>): Promise<Static<typeof DetailAnswer>> {
      const ep: EpisodeDoc = await this.accessibleEpisode(ctx, ctx.params.user_id, ctx.params.episode_id);
      await this.writeStates(ctx.params.user_id, [ep], { listen_duration: ctx.params.episode_pos, last_listened_at: new Date() });
      return { detail: "History recorded successfully." };
    },
  },
  /**
   * POST /api/data/record_listen_duration: the position reached; completes the episode when the time
   * left is at most the user's auto_complete_seconds. Episode id 0 (a stream without an episode) is ignored.
   */
  record_listen_duration: {
    idempotent: true,
    params: { episode_id: { type: "number", integer: true, min: 0, convert: true }, user_id: id, listen_duration: position, is_vidsite: optionalBool },
    response: ListenDurationAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<OneParams & { listen_duration: number }>): Promise<ListenDurationAnswer> {
      const { user_id, episode_id, listen_duration } = ctx.params;
      if (episode_id === 0) return { detail: "Listen duration of episode 0 ignored.", completed: false };
      const [ep, settings]: [EpisodeDoc, ListeningSettings] = await Promise.all([
        this.accessibleEpisode(ctx, user_id, episode_id),
        listeningSettings(ctx, { user_id }),
      ]);
      const set: Partial<EpisodeStateDoc> = { listen_duration, last_listened_at: new Date() };
      if (nearEnd(ep, listen_duration, settings.auto_complete_seconds)) set.completed = true;
      await this.writeStates(user_id, [ep], set);
      return { detail: "Listen duration recorded.", completed: !!set.completed };
    },
  },
  /** GET /api/data/user_history/{user_id}: newest listen first; total before paging. */
  user_history: {
    idempotent: true,
    params: { user_id: id, ...paging, sort_by: { type: "enum", values: Object.keys(HISTORY_SORTS), optional: true }, sort_order: sortOrder, filter, search },
    response: HistoryAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<ListParams>): Promise<HistoryAnswer> {
      const p = ctx.params;
      const sortBy = p.sort_by ?? "listen_date";
      // The common request (a page by date, no search or filter) pages the user's history as the state
      // cache keeps it sorted, and joins only the page; total counts every history row.
      if (sortBy === "listen_date" && !p.search && (p.filter ?? "all") === "all") {
        const history: readonly EpisodeStateDoc[] = (await this.userStates(p.user_id)).history();
        const offset = p.offset ?? 0;
        const end = offset + (p.limit ?? 100);
        // history() runs newest first with ties by episode id descending: ascending is its exact reverse.
        const states =
          p.sort_order === "asc"
            ? history.slice(Math.max(0, history.length - end), Math.max(0, history.length - offset)).reverse()
            : history.slice(offset, end);
        const [rows, downloaded]: [Row[], Set<number>] = await Promise.all([
          this.join(ctx, p.user_id, states).then((r) => this.withDocs(r)),
          this.downloadedOf(
            ctx,
            p.user_id,
            states.map((st) => st.episode_id),
          ),
        ]);
        return { data: rows.map((r) => this.historyItem(r, downloaded)), total: history.length };
      }
      // In the history's own order (newest listen first), so that the default sort finds it sorted.
      const rows = (await this.join(ctx, p.user_id, (await this.userStates(p.user_id)).history())).filter(EPISODE_FILTERS[p.filter ?? "all"]);
      const cut = pageRows(rows, { ...p, limit: p.limit ?? 100 }, HISTORY_SORTS[sortBy], "desc");
      const page: Row[] = await this.withDocs(cut.page);
      const downloaded = await this.downloadedOf(
        ctx,
        p.user_id,
        page.map((r) => r.ep._id),
      );
      return { data: page.map((r) => this.historyItem(r, downloaded)), total: cut.total };
    },
  },
  /** PUT /api/data/increment_listen_time/{user_id}: players call it once per minute of playback. */
  increment_listen_time: counter("listen_seconds", 60, "Listen time incremented."),
  /** PUT /api/data/increment_played/{user_id}: players call it when an episode starts. */
  increment_played: counter("played", 1, "Played count incremented."),
  /** GET /api/data/auto_complete_episodes: completes the caller's episodes already within auto_complete_seconds of the end. */
  auto_complete_episodes: {
    idempotent: true,
    params: {},
    response: AutoCompleteAnswer,
    async handler(this: EpisodesThis, ctx: Ctx): Promise<AutoCompleteAnswer> {
      const user_id = ctx.meta.user!.id;
      const settings: ListeningSettings = await listeningSettings(ctx, { user_id });
      if (settings.auto_complete_seconds === 0) return { detail: "Auto-complete is disabled (auto_complete_seconds is 0).", completed_count: 0 };
      const rows: Row<CatalogRow>[] = await this.joinedStates(ctx, user_id, (st) => st.listen_duration > 0 && st.completed !== true);
      const done = rows.filter((r) => nearEnd(r.ep, r.st!.listen_duration, settings.auto_complete_seconds)).map((r) => r.ep);
      await this.writeStates(user_id, done, { completed: true });
      return { detail: `${done.length} episode${done.length === 1 ? "" : "s"} auto-completed.`, completed_count: done.length };
    },
  },

  bulk_mark_episodes_completed: bulkSetter(() => ({ completed: true }), "marked as completed"),
  bulk_save_episodes: bulkSetter(() => ({ saved: true, saved_at: new Date() }), "saved"),
  /** POST /api/data/bulk_queue_episodes: the queue service appends in the given order, never duplicated, and checks visibility itself. */
  bulk_queue_episodes: {
    params: bulk,
    response: BulkAnswer,
    async handler(this: EpisodesThis, ctx: Ctx<BulkParams>): Promise<BulkAnswer> {
      const params: QueueBulkAddParams = { user_id: ctx.params.user_id, episode_ids: Array.from(new Set<number>(ctx.params.episode_ids)) };
      const res: QueueBulkAddResult = params.episode_ids.length ? await bulkAdd(ctx, params) : { added: [], already_queued: [], failed: [] };
      return bulkAnswer(res.added.length + res.already_queued.length, res.failed.length, "queued");
    },
  },

  // --- Internal actions (not in the route table) ---

  /** Writes one user's state of one episode, whether or not they see it (tests and internal tools set up states with it). */
  update_state: {
    visibility: "public",
    params: {
      user_id: id,
      episode_id: id,
      listen_duration: { type: "number", min: 0, optional: true },
      completed: { type: "boolean", optional: true },
      saved: { type: "boolean", optional: true },
    },
    async handler(
      this: EpisodesThis,
      ctx: Ctx<{ user_id: number; episode_id: number; listen_duration?: number; completed?: boolean; saved?: boolean }>,
    ): Promise<{ success: true }> {
      const { user_id, episode_id, ...fields } = ctx.params;
      const ep: EpisodeDoc | null = await this.adapter.findOne({ _id: episode_id });
      if (!ep) throw new NotFoundError("Episode not found");
      const set: Partial<EpisodeStateDoc> = { ...fields };
      if (fields.listen_duration !== undefined) set.last_listened_at = new Date();
      await this.writeStates(user_id, [ep], set);
      return { success: true };
    },
  },
};

export const listeningMethods = {
  /** The bulk request's distinct ids the user sees, in request order, and how many others there were. */
  async bulkTargets(this: EpisodesThis, ctx: Ctx<BulkParams>): Promise<{ episodes: EpisodeDoc[]; failed: number }> {
    const ids: number[] = Array.from(new Set<number>(ctx.params.episode_ids));
    const episodes: EpisodeDoc[] = await this.visibleEpisodes(ctx, ctx.params.user_id, ids);
    const ordered = inIdOrder(ids, episodes);
    return { episodes: ordered, failed: ids.length - ordered.length };
  },
};
