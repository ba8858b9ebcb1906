/** Answers of the playlists service's routes. */
import { action } from "./call";
import { Nullable, Type, type Static } from "./answers";
import { QueueItem } from "./episodes";

/** A playlist as get_playlists and get_playlist_episodes show it (the create record, its counts and dates). */
export const PlaylistView = Type.Object({
  playlist_id: Type.Integer(),
  user_id: Type.Integer(),
  name: Type.String(),
  description: Nullable(Type.String()),
  is_system_playlist: Type.Boolean(),
  podcast_ids: Nullable(Type.Array(Type.Integer())),
  include_unplayed: Type.Boolean(),
  include_partially_played: Type.Boolean(),
  include_played: Type.Boolean(),
  play_progress_min: Nullable(Type.Number()),
  play_progress_max: Nullable(Type.Number()),
  time_filter_hours: Nullable(Type.Integer()),
  min_duration: Nullable(Type.Integer()),
  max_duration: Nullable(Type.Integer()),
  max_episodes: Nullable(Type.Integer()),
  sort_order: Type.String(),
  group_by_podcast: Type.Boolean(),
  icon_name: Type.String(),
  created: Type.String({ format: "date-time" }),
  last_updated: Type.String({ format: "date-time" }),
  episode_count: Type.Integer(),
});
export type PlaylistView = Static<typeof PlaylistView>;
/** get_playlists: each with its first episodes (title, artwork) as the web client's playlist cards show them. */
export const PlaylistsAnswer = Type.Object({
  playlists: Type.Array(
    Type.Composite([PlaylistView, Type.Object({ preview_episodes: Type.Array(Type.Object({ title: Type.String(), artwork: Type.String() })) })]),
  ),
});
export type PlaylistsAnswer = Static<typeof PlaylistsAnswer>;
/** A playlist's episode: the queue item but is_video. */
export const PlaylistEpisode = Type.Omit(QueueItem, ["is_video"]);
export type PlaylistEpisode = Static<typeof PlaylistEpisode>;
export const PlaylistEpisodesAnswer = Type.Object({ playlist_info: PlaylistView, episodes: Type.Array(PlaylistEpisode), total: Type.Integer() });
export type PlaylistEpisodesAnswer = Static<typeof PlaylistEpisodesAnswer>;
export const CreatePlaylistAnswer = Type.Object({ detail: Type.String(), playlist_id: Type.Integer() });
export type CreatePlaylistAnswer = Static<typeof CreatePlaylistAnswer>;
export const UpdatePlaylistsAnswer = Type.Object({ detail: Type.String(), users: Type.Integer(), system_playlists_created: Type.Integer() });
export type UpdatePlaylistsAnswer = Static<typeof UpdatePlaylistsAnswer>;

// --- Calls to the playlists service and its events (shared/contracts/call.ts) ---

/** A playlist's episodes, paged (GET /api/data/get_playlist_episodes). */
export const getPlaylistEpisodes = action<{ user_id: number; playlist_id: number; limit?: number; offset?: number }, PlaylistEpisodesAnswer>(
  "playlists.get_playlist_episodes",
);
