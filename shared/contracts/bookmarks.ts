/** Params, answers and calls of the bookmarks service (services/bookmarks.service.ts): a user's timestamped notes on episodes. */
import { action } from "./call";
import { Nullable, Type, type Static } from "./answers";

/** Longest note a bookmark keeps (characters). */
export const BOOKMARK_NOTE_MAX = 2000;
/** Latest position a bookmark takes (seconds): a week, well past any episode, so a bad client value is refused. */
export const BOOKMARK_POSITION_MAX = 7 * 24 * 3600;

/** POST /api/data/bookmarks */
export interface CreateBookmarkParams {
  user_id: number;
  episode_id: number;
  position: number;
  note?: string;
}

/** GET /api/data/bookmarks: one episode's bookmarks, or all the user's. */
export interface ListBookmarksParams {
  user_id: number;
  episode_id?: number;
  limit?: number;
  offset?: number;
}

/** PUT /api/data/bookmarks/{bookmark_id}: the fields sent change; user_id (optional) names whose bookmark it must be. */
export interface UpdateBookmarkParams {
  bookmark_id: number;
  user_id?: number;
  position?: number;
  note?: string;
}

/** DELETE /api/data/bookmarks/{bookmark_id} */
export interface RemoveBookmarkParams {
  bookmark_id: number;
  user_id?: number;
}

/** A bookmark as every route answers it, with what a client shows beside it (null once its episode left the catalogue). */
export const BookmarkView = Type.Object({
  bookmark_id: Type.Integer(),
  user_id: Type.Integer(),
  episode_id: Type.Integer(),
  position: Type.Number({ minimum: 0, description: "Seconds from the start of the episode" }),
  note: Type.String({ maxLength: BOOKMARK_NOTE_MAX }),
  created_at: Type.String({ format: "date-time" }),
  updated_at: Type.String({ format: "date-time" }),
  podcast_id: Nullable(Type.Integer()),
  episode_title: Nullable(Type.String()),
  podcast_name: Nullable(Type.String()),
});
export type BookmarkView = Static<typeof BookmarkView>;

/** GET /api/data/bookmarks: one page and the total of the list. */
export const BookmarksAnswer = Type.Object({
  bookmarks: Type.Array(BookmarkView),
  total: Type.Integer({ description: "Bookmarks of the list before paging" }),
});
export type BookmarksAnswer = Static<typeof BookmarksAnswer>;

// --- Calls to the bookmarks service (shared/contracts/call.ts) ---

/** Most episodes bookmarkedEpisodes answers for one term. */
export const BOOKMARK_MATCHES_MAX = 1000;

/** The episodes the user bookmarked with a note containing the term (case-insensitive), for the library search (search_data). */
export const bookmarkedEpisodes = action<{ user_id: number; search_term: string }, number[]>("bookmarks.matching_episodes");
