/** Shapes of the queue service's internal actions (house rule 1, docs/architecture.md), and the answers of its routes. */
import { action } from "./call";
import { Type, type Static } from "./answers";
import { QueueItem } from "./episodes";

/** queue.bulk_add params: append these episodes to the user's queue, in this order. */
export interface QueueBulkAddParams {
  user_id: number;
  episode_ids: number[];
}

/**
 * queue.bulk_add result: `added` are now at the end of the queue, `already_queued` were there before
 * (left in place: a queue never holds an episode twice), `failed` are ids the user cannot see
 * (unknown, or of a podcast they are not subscribed to).
 */
export interface QueueBulkAddResult {
  added: number[];
  already_queued: number[];
  failed: number[];
}

/** queue.visible_length params; its result is how many queued episodes the user still sees. */
export interface QueueLengthParams {
  user_id: number;
}

/** queue.positions params: which of these episodes the user has queued (without episode_ids: every queued one, the inbox). */
export interface QueuePositionsParams {
  user_id: number;
  episode_ids?: number[];
}

/** queue.positions result: episode id -> { position (1..n), queued_at (ISO) } for the queued ones only. */
export type QueuePositionsResult = Record<number, { position: number; queued_at: string }>;

/** queue.preview params: the first `limit` visible entries, the visible count, and which of `episode_ids` are queued. */
export interface QueuePreviewParams {
  user_id: number;
  limit: number;
  episode_ids: number[];
}

// --- Answers of the queue service's routes ---

/** get_queued_episodes: queue items ordered by queueposition (1..n). */
export const QueuedEpisodesAnswer = Type.Object({
  data: Type.Array(
    Type.Composite([
      Type.Omit(QueueItem, ["is_video", "queueposition", "queuedate"]),
      Type.Object({ queueposition: Type.Integer(), queuedate: Type.String({ format: "date-time" }) }),
    ]),
  ),
});
export type QueuedEpisodesAnswer = Static<typeof QueuedEpisodesAnswer>;

/** queue.preview result (home_overview's queue section): as get_queued_episodes' first entries, without reading the whole queue's episodes. */
export interface QueuePreviewResult {
  entries: QueuedEpisodesAnswer["data"];
  /** Queued episodes the user still sees (get_queued_episodes' length). */
  count: number;
  /** Those of the asked episode_ids that are in the queue. */
  queued: number[];
}

// --- Calls to the queue service and its events (shared/contracts/call.ts) ---

/** Where these episodes are in the user's queue (only the queued ones). */
export const queuePositions = action<QueuePositionsParams, QueuePositionsResult>("queue.positions");
/** The user's queued episodes in queue order (GET /api/data/get_queued_episodes). */
export const getQueuedEpisodes = action<{ user_id: number }, QueuedEpisodesAnswer>("queue.get_queued_episodes");
/** Appends the episodes the user sees and has not queued, in order (bulk_queue_episodes). */
export const bulkAdd = action<QueueBulkAddParams, QueueBulkAddResult>("queue.bulk_add");
/** How many queued episodes the user still sees (get_stats). */
export const visibleLength = action<QueueLengthParams, number>("queue.visible_length");
/** home_overview's queue section: the first entries, the count, and which of the asked episodes are queued. */
export const preview = action<QueuePreviewParams, QueuePreviewResult>("queue.preview");
