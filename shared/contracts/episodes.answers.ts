/** The answers of the episodes service's routes (re-exported by episodes.ts, the service's contract). */
import { IsYoutube, Nullable, Type, type Static } from "./answers";

// --- Answers of the episodes service's routes ---

/**
 * An episode with the user's state, as list operations show it (spec "Episode list items"). Text fields
 * are strings, "" when the feed has none: the web and mobile clients parse them as non-null strings.
 */
export const EpisodeListItem = Type.Object({
  episodeid: Type.Integer(),
  podcastid: Type.Integer(),
  podcastname: Type.String(),
  episodetitle: Type.String(),
  episodepubdate: Type.String(),
  episodedescription: Type.String(),
  episodeartwork: Type.String(),
  episodeurl: Type.String(),
  episodeduration: Type.Integer(),
  listenduration: Nullable(Type.Integer()),
  completed: Type.Boolean(),
  saved: Type.Boolean(),
  is_vidsite: Type.Boolean(),
  is_youtube: IsYoutube,
  /** The user has downloaded it (the downloads service's answer). */
  downloaded: Type.Boolean(),
});
export type EpisodeListItem = Static<typeof EpisodeListItem>;
/** An episode a selection (select_episodes: playlists, queue) answers: a list item and whether it is a video. */
export type SelectedEpisode = EpisodeListItem & { is_video: boolean };
/** Queue or next-episode item: a list item with its queue place and whether it is a video. */
export const QueueItem = Type.Composite([
  EpisodeListItem,
  Type.Object({
    queueposition: Nullable(Type.Integer()),
    queuedate: Nullable(Type.String({ format: "date-time" })),
    queued: Type.Boolean(),
    is_video: Type.Boolean(),
  }),
]);
export type QueueItem = Static<typeof QueueItem>;
export const EpisodesPageAnswer = Type.Object({ episodes: Type.Array(EpisodeListItem), total: Type.Integer() });
export type EpisodesPageAnswer = Static<typeof EpisodesPageAnswer>;
/** GET /api/data/inbox: new episodes to triage, newest first, each with its podcast's artwork ("" when none); total before paging. */
export const InboxAnswer = Type.Object({
  episodes: Type.Array(Type.Composite([EpisodeListItem, Type.Object({ podcastartwork: Type.String() })])),
  total: Type.Integer(),
});
export type InboxAnswer = Static<typeof InboxAnswer>;
/** GET /api/data/inbox/count: the inbox's length (a badge). */
export const InboxCountAnswer = Type.Object({ count: Type.Integer({ minimum: 0 }) });
export type InboxCountAnswer = Static<typeof InboxCountAnswer>;
/** POST /api/data/inbox/dismiss: episodes taken out; failed: ids the user cannot see (not of their podcasts, or none such). */
export const InboxDismissAnswer = Type.Object({ dismissed: Type.Integer({ minimum: 0 }), failed: Type.Integer({ minimum: 0 }) });
export type InboxDismissAnswer = Static<typeof InboxDismissAnswer>;
/** Saved item: the queue item's fields but description, podcast id and queue place. */
export const SavedEpisodesAnswer = Type.Object({
  saved_episodes: Type.Array(Type.Omit(QueueItem, ["episodedescription", "podcastid", "queueposition", "queuedate", "is_video"])),
  total: Type.Integer(),
});
export type SavedEpisodesAnswer = Static<typeof SavedEpisodesAnswer>;
/** History item (spec "Episode list items", plus downloaded as the other lists show it), newest first. */
export const HistoryAnswer = Type.Object({
  data: Type.Array(
    Type.Object({
      episodeid: Type.Integer(),
      podcastname: Type.String(),
      episodename: Type.String(),
      episodeartwork: Type.String(),
      episodeurl: Type.String(),
      episodepubdate: Type.String(),
      episodeduration: Type.Integer(),
      listenduration: Type.Integer(),
      completed: Type.Boolean(),
      listendate: Type.String(),
      downloaded: Type.Boolean(),
      is_vidsite: Type.Boolean(),
      is_youtube: IsYoutube,
      episodetitle: Type.String({ description: "episodename again, as PinePods' clients read it" }),
    }),
  ),
  total: Type.Integer(),
});
export type HistoryAnswer = Static<typeof HistoryAnswer>;
/**
 * get_episode_metadata (open in the documents): the queue item with the episode's links and its Podcasting 2.0 data
 * as the feed parser read it. Saved, queued and downloaded only as is_saved, is_queued, is_downloaded: PinePods'
 * mobile app reads those, and its web client takes is_saved as an alias of saved (both at once are serde's
 * duplicate field error). explicit 0 or 1: the web client reads an integer.
 */
export const EpisodeMetadataAnswer = Type.Object({
  episode: Type.Composite([
    Type.Omit(QueueItem, ["saved", "queued", "downloaded"]),
    Type.Object({
      is_saved: Type.Boolean(),
      is_queued: Type.Boolean(),
      is_downloaded: Type.Boolean(),
      episodelink: Nullable(Type.String()),
      episodeauthor: Nullable(Type.String()),
      explicit: Type.Union([Type.Literal(0), Type.Literal(1)]),
      season: Nullable(Type.Integer()),
      episode_number: Nullable(Type.Integer()),
      episode_type: Nullable(Type.String()),
      enclosure_type: Nullable(Type.String()),
      file_size: Type.Integer(),
    }),
  ]),
});
export type EpisodeMetadataAnswer = Static<typeof EpisodeMetadataAnswer>;
export const EpisodeInDbAnswer = Type.Object({ episode_in_db: Type.Boolean() });
export type EpisodeInDbAnswer = Static<typeof EpisodeInDbAnswer>;
export const PodcastOfEpisodeAnswer = Type.Object({ podcast_id: Type.Integer() });
export type PodcastOfEpisodeAnswer = Static<typeof PodcastOfEpisodeAnswer>;
export const PodcastAndEpisodeAnswer = Type.Object({ podcast_id: Type.Integer(), episode_id: Type.Integer() });
export type PodcastAndEpisodeAnswer = Static<typeof PodcastAndEpisodeAnswer>;
/** get_episode_id_ep_name: the id as a bare JSON number (both PinePods clients parse the body's text as an integer). */
export const EpisodeIdAnswer = Type.Integer();
export type EpisodeIdAnswer = Static<typeof EpisodeIdAnswer>;
/** record_listen_duration: whether the position completed the episode (auto_complete_seconds). */
export const ListenDurationAnswer = Type.Object({ detail: Type.String(), completed: Type.Boolean() });
export type ListenDurationAnswer = Static<typeof ListenDurationAnswer>;
export const AutoCompleteAnswer = Type.Object({ detail: Type.String(), completed_count: Type.Integer() });
export type AutoCompleteAnswer = Static<typeof AutoCompleteAnswer>;
/** The bulk response of the documents. */
export const BulkAnswer = Type.Object({ message: Type.String(), processed_count: Type.Integer(), failed_count: Nullable(Type.Integer()) });
export type BulkAnswer = Static<typeof BulkAnswer>;
/** get_stats: the documents' user stats record (times in seconds). */
export const StatsAnswer = Type.Object({
  total_listen_time: Type.Integer(),
  episodes_played: Type.Integer(),
  episodes_completed: Type.Integer(),
  podcasts_subscribed: Type.Integer(),
  episodes_downloaded: Type.Integer(),
  episodes_saved: Type.Integer(),
  episodes_queued: Type.Integer(),
  avg_listen_time_per_episode: Type.Integer(),
  most_listened_podcast: Nullable(Type.String()),
  listening_streak_days: Type.Integer(),
  last_activity: Nullable(Type.String()),
});
export type StatsAnswer = Static<typeof StatsAnswer>;
/**
 * get_stats' answer: the documents' record, then the same figures by the names PinePods' clients read (mobile
 * UserStats, web UserStats): TimeListened in minutes, UserCreated the account's creation (ISO), Pod_Sync_Type the
 * user's sync account type ("None" without one), GpodderUrl (the web client requires it) that account's server ("" without
 * one; never its password or token).
 */
export const StatsWithClientNamesAnswer = Type.Composite([
  StatsAnswer,
  Type.Object({
    UserCreated: Type.String(),
    PodcastsPlayed: Type.Integer(),
    TimeListened: Type.Integer(),
    PodcastsAdded: Type.Integer(),
    EpisodesSaved: Type.Integer(),
    EpisodesDownloaded: Type.Integer(),
    Pod_Sync_Type: Type.String(),
    GpodderUrl: Type.String(),
  }),
]);
export type StatsWithClientNamesAnswer = Static<typeof StatsWithClientNamesAnswer>;
/** get_extended_stats: get_stats plus rates, listening per weekday, hour, podcast and day of the last 30. */
export const ExtendedStatsAnswer = Type.Composite([
  StatsAnswer,
  Type.Object({
    timezone: Type.String(),
    /** Percent of the episodes started or completed that are completed, whole (the web client reads an integer). */
    completion_rate: Type.Integer(),
    episodes_listened_by_weekday: Type.Record(Type.String(), Type.Integer()),
    episodes_listened_by_hour: Type.Array(Type.Integer()),
    last_30_days: Type.Array(Type.Object({ date: Type.String(), episodes: Type.Integer() })),
    /** Each also spelled as the web client's TopPodcastStat reads it (podcastid, podcastname, artworkurl, total_seconds). */
    top_podcasts: Type.Array(
      Type.Object({
        podcast_id: Type.Integer(),
        podcast_name: Type.String(),
        listen_time: Type.Integer(),
        episodes_listened: Type.Integer(),
        podcastid: Type.Integer(),
        podcastname: Type.String(),
        artworkurl: Type.String(),
        total_seconds: Type.Integer(),
      }),
    ),
    /** The web client's other figures: seconds per category, the longest episode heard, a badge by hours heard, downloads, the streak, listens per weekday from Sunday. */
    favorite_categories: Type.Array(Type.Object({ name: Type.String(), total_seconds: Type.Integer() })),
    longest_episode: Nullable(
      Type.Object({ episodeid: Type.Integer(), episodetitle: Type.String(), episodeduration: Type.Integer(), podcastname: Type.String() }),
    ),
    listening_badge: Type.String(),
    total_downloaded_bytes: Type.Integer(),
    total_downloaded_formatted: Type.String(),
    current_streak: Type.Integer(),
    listening_by_dow: Type.Array(Type.Integer()),
  }),
]);
export type ExtendedStatsAnswer = Static<typeof ExtendedStatsAnswer>;
/** An episode of home_overview by the names PinePods' clients read (mobile HomeEpisode, web Episode): a list item and queued. */
export const HomeClientEpisode = Type.Composite([EpisodeListItem, Type.Object({ queued: Type.Boolean() })]);
export type HomeClientEpisode = Static<typeof HomeClientEpisode>;
/** A podcast of home_overview's top_podcasts (mobile HomePodcast, web HomePodcast, which requires is_youtube). */
export const HomeClientPodcast = Type.Object({
  podcastid: Type.Integer(),
  podcastname: Type.String(),
  podcastindexid: Nullable(Type.Integer()),
  artworkurl: Nullable(Type.String()),
  websiteurl: Nullable(Type.String()),
  is_vidsite: Type.Boolean(),
  is_youtube: IsYoutube,
  play_count: Type.Integer({ description: "Episodes of it in the user's history" }),
  total_listen_time: Type.Integer({ description: "Seconds heard" }),
});
/**
 * The sections of the clients' home page that the documents' record lacks (home_overview adds them after it): episodes
 * started and not finished, the first of the queue, the podcasts listened to most, the counts, and the last 7 days.
 */
export const HomeClientSections = Type.Object({
  in_progress_episodes: Type.Array(HomeClientEpisode),
  queue_preview: Type.Array(HomeClientEpisode),
  top_podcasts: Type.Array(HomeClientPodcast),
  saved_count: Type.Integer(),
  downloaded_count: Type.Integer(),
  queue_count: Type.Integer(),
  weekly_stats: Type.Object({ seconds_listened: Type.Integer(), episodes_completed: Type.Integer() }),
});
export type HomeClientSections = Static<typeof HomeClientSections>;
/**
 * home_overview: the documents' home overview record (listen_progress is the percentage heard), each recent episode
 * also by the clients' names, then HomeClientSections.
 */
export const HomeOverviewAnswer = Type.Composite([
  Type.Object({
    recent_episodes: Type.Array(
      Type.Composite([
        Type.Object({
          episode_id: Type.Integer(),
          episode_title: Type.String(),
          podcast_name: Type.String(),
          episode_artwork: Nullable(Type.String()),
          listen_progress: Type.Number(),
          last_listened: Nullable(Type.String()),
        }),
        HomeClientEpisode,
      ]),
    ),
    quick_stats: Type.Object({ total_listen_time: Type.Integer(), episodes_this_week: Type.Integer(), completion_rate: Type.Number() }),
    recommended_episodes: Type.Array(
      Type.Object({ episode_id: Type.Integer(), episode_title: Type.String(), podcast_name: Type.String(), reason: Type.String() }),
    ),
  }),
  HomeClientSections,
]);
export type HomeOverviewAnswer = Static<typeof HomeOverviewAnswer>;
/** 0 or 1: PinePods' clients read explicit as an integer in these records (web: i32; mobile: `== 1`). */
const ExplicitFlag = Type.Union([Type.Literal(0), Type.Literal(1)]);
/**
 * search_data's podcast entry: the documents' search result fields (type, podcast_id, names, description,
 * artwork_url) and beside them the names both PinePods clients read a result by (the web client parses every
 * entry as its Episode, the mobile app as its SearchEpisodeResult): podcastid, podcastname, artworkurl, feedurl,
 * websiteurl, explicit, episodecount, categories as the object "1": name. Text is "" where the feed has none
 * (the web client's Strings refuse null).
 */
export const SearchPodcastEntry = Type.Object({
  type: Type.Literal("podcast"),
  podcast_id: Type.Integer(),
  podcast_name: Type.String(),
  author: Type.String(),
  description: Type.String(),
  artwork_url: Nullable(Type.String()),
  categories: Type.Record(Type.String(), Type.String()),
  podcastid: Type.Integer(),
  podcastname: Type.String(),
  artworkurl: Type.String(),
  feedurl: Type.String(),
  websiteurl: Type.String(),
  explicit: ExplicitFlag,
  episodecount: Type.Integer(),
});
export type SearchPodcastEntry = Static<typeof SearchPodcastEntry>;
/**
 * search_data: podcast entries, then episode entries (spec "Search result entry"). An episode entry has the
 * documents' fields and the clients' episode names; not episodedescription, pub_date or duration: the web
 * client's Episode takes description, pub_date and duration as aliases of episodedescription, episodepubdate and
 * episodeduration, and two names of one field are serde's duplicate field error.
 */
export const SearchDataAnswer = Type.Object({
  data: Type.Array(
    Type.Union([
      SearchPodcastEntry,
      Type.Object({
        type: Type.Literal("episode"),
        episode_id: Type.Integer(),
        podcast_id: Type.Integer(),
        podcast_name: Type.String(),
        episode_title: Type.String(),
        description: Type.String(),
        artwork_url: Nullable(Type.String()),
        episodeid: Type.Integer(),
        podcastid: Type.Integer(),
        podcastname: Type.String(),
        episodetitle: Type.String(),
        artworkurl: Type.String(),
        episodeartwork: Type.String(),
        episodeurl: Type.String(),
        episodepubdate: Type.String(),
        episodeduration: Type.Integer(),
        listenduration: Type.Integer(),
        completed: Type.Boolean(),
        saved: Type.Boolean(),
        queued: Type.Boolean(),
        downloaded: Type.Boolean(),
        is_vidsite: Type.Boolean(),
        is_youtube: IsYoutube,
      }),
    ]),
  ),
  total: Type.Integer(),
});
export type SearchDataAnswer = Static<typeof SearchDataAnswer>;
