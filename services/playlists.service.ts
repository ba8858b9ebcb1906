/**
 * Smart playlists: the `playlists` collection. A playlist is a stored filter; its episodes are worked
 * out when read by episodes.select_episodes (the episodes and states live there), so a playlist is
 * never stale and needs no refresh job. Every user has the six system playlists of docs/spec/ROUTES.md:
 * made when the account is created (user.created), and for accounts older than this service the first
 * time their playlists are listed, or for everyone by an admin's update_playlists.
 */
import type { ServiceSchema } from "moleculer";
import { DbMixin, isDuplicateKeyError } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { BadRequestError, ForbiddenError, NotFoundError } from "../shared/errors";
import { PLAYLIST_SORT_ORDERS, selectEpisodes } from "../shared/contracts/episodes";
import type { SelectedEpisode, EpisodeSelection, PlaylistSortOrder, SelectEpisodesParams, SelectionResult } from "../shared/contracts/episodes";
import type { QueuePositionsResult } from "../shared/contracts/queue";
import { queuePositions } from "../shared/contracts/queue";
import type { UserEvent } from "../shared/contracts/users";
import { userCreated, userIds } from "../shared/contracts/users";
import { subscriptionsRemoved } from "../shared/contracts/podcasts";
import type { Caller } from "../shared/contracts/call";
import type { Ctx, DbThis } from "../shared/service-types";
import { QueueItem } from "../shared/contracts/episodes";
import { CreatePlaylistAnswer, PlaylistEpisodesAnswer, PlaylistsAnswer, UpdatePlaylistsAnswer } from "../shared/contracts/playlists";
import type { PlaylistView } from "../shared/contracts/playlists";
import { DetailAnswer } from "../shared/contracts/answers";
import type { Static } from "../shared/contracts/answers";

/** The filter fields of a playlist record (spec: "Playlist"). */
const FILTER_FIELDS = [
  "podcast_ids",
  "include_unplayed",
  "include_partially_played",
  "include_played",
  "play_progress_min",
  "play_progress_max",
  "time_filter_hours",
  "min_duration",
  "max_duration",
  "max_episodes",
  "sort_order",
  "group_by_podcast",
] as const;
type FilterField = (typeof FILTER_FIELDS)[number];

interface PlaylistDoc extends Required<Omit<EpisodeSelection, "episode_ids" | "seed">> {
  _id: number;
  user_id: number;
  name: string;
  description: string | null;
  icon_name: string;
  is_system: boolean;
  /** "<user_id>:<slug>" of a system playlist (unique: made once per user however many nodes race); absent otherwise. */
  system_key?: string;
  created_at: Date;
  updated_at: Date;
}

type PlaylistValues = Omit<PlaylistDoc, "_id" | "user_id" | "is_system" | "system_key" | "created_at" | "updated_at">;

/** The record's fields as a request sends them: sort_order may be a client's alias (SORT_ORDER_ALIASES); create_playlist's schema requires the record's fields. */
type RecordParams = Omit<Partial<PlaylistValues>, "sort_order"> & { sort_order?: string };
type Paging = { offset?: number; limit?: number };

const SYSTEM_DEFAULTS = {
  description: null,
  podcast_ids: null,
  include_unplayed: true,
  include_partially_played: true,
  include_played: false,
  play_progress_min: null,
  play_progress_max: null,
  time_filter_hours: null,
  min_duration: null,
  max_duration: null,
  max_episodes: null,
  group_by_podcast: false,
};
/** The six system playlists (docs/spec/ROUTES.md); durations in seconds, bounds inclusive. */
const SYSTEM_PLAYLISTS: (Partial<PlaylistValues> & { slug: string; name: string; sort_order: PlaylistSortOrder; icon_name: string })[] = [
  {
    slug: "quick_listens",
    name: "Quick Listens",
    description: "Episodes of 15 minutes or less",
    max_duration: 900,
    sort_order: "duration_asc",
    icon_name: "ph-fast-forward",
  },
  { slug: "longform", name: "Longform", description: "Episodes of an hour or more", min_duration: 3600, sort_order: "duration_desc", icon_name: "ph-car" },
  {
    slug: "currently_listening",
    name: "Currently Listening",
    description: "Episodes you started and have not finished",
    include_unplayed: false,
    sort_order: "date_desc",
    icon_name: "ph-play",
  },
  {
    slug: "fresh_releases",
    name: "Fresh Releases",
    description: "Episodes of the last 24 hours",
    time_filter_hours: 24,
    sort_order: "date_desc",
    icon_name: "ph-sparkle",
  },
  {
    slug: "weekend_marathon",
    name: "Weekend Marathon",
    description: "Episodes of 30 minutes or more, by podcast",
    min_duration: 1800,
    sort_order: "duration_desc",
    group_by_podcast: true,
    icon_name: "ph-couch",
  },
  {
    slug: "commuter_mix",
    name: "Commuter Mix",
    description: "Episodes of 15 to 45 minutes",
    min_duration: 900,
    max_duration: 2700,
    sort_order: "date_desc",
    icon_name: "ph-train",
  },
];

/** sort_order values PinePods' mobile app sends (its create form), stored as the documented value of the same order. */
const SORT_ORDER_ALIASES: Record<string, PlaylistSortOrder> = {
  newest_first: "date_desc",
  oldest_first: "date_asc",
  shortest_first: "duration_asc",
  longest_first: "duration_desc",
};

const id = { type: "number", integer: true, positive: true, convert: true };
const count = (min: number) => ({ type: "number", integer: true, min, max: 2147483647, convert: true, nullable: true });
const flag = { type: "boolean", convert: true };
/** The record's fields as create_playlist requires them (spec: "Playlist"). */
const RECORD = {
  name: { type: "string", trim: true, min: 1, max: 200 },
  description: { type: "string", max: 2000, nullable: true, optional: true },
  podcast_ids: { type: "array", max: 10000, items: { ...id, convert: false }, nullable: true, optional: true },
  include_unplayed: flag,
  include_partially_played: flag,
  include_played: flag,
  play_progress_min: { type: "number", min: 0, max: 100, convert: true, nullable: true, optional: true },
  play_progress_max: { type: "number", min: 0, max: 100, convert: true, nullable: true, optional: true },
  time_filter_hours: { ...count(1), optional: true },
  min_duration: { ...count(0), optional: true },
  max_duration: { ...count(0), optional: true },
  max_episodes: { ...count(1), optional: true },
  sort_order: { type: "enum", values: [...PLAYLIST_SORT_ORDERS, ...Object.keys(SORT_ORDER_ALIASES)] },
  group_by_podcast: flag,
  icon_name: { type: "string", trim: true, min: 1, max: 100 },
};
/** update_playlist (PATCH): the same fields, each optional. */
const PATCH = Object.fromEntries(Object.entries(RECORD).map(([k, rule]) => [k, { ...rule, optional: true }]));
const paging = {
  limit: { type: "number", integer: true, min: 1, max: 1000, convert: true, optional: true },
  offset: { type: "number", integer: true, min: 0, convert: true, optional: true },
};

/**
 * The record's fields that were sent: nothing else of a request (is_system, _id, dates) reaches the store. Clients'
 * spellings become the documented values: a sort_order alias its order, and podcast_ids [] (PinePods' mobile app's
 * "no podcast filter") null, as the web client sends it.
 */
function recordFields(params: Record<string, unknown>): Partial<PlaylistValues> {
  const fields: Partial<PlaylistValues> = Object.fromEntries(
    Object.keys(RECORD)
      .filter((k) => params[k] !== undefined)
      .map((k) => [k, params[k]]),
  );
  if (fields.sort_order) fields.sort_order = SORT_ORDER_ALIASES[fields.sort_order] ?? fields.sort_order;
  if (fields.podcast_ids?.length === 0) fields.podcast_ids = null;
  return fields;
}

/** 400 when a range's lower bound is above its upper bound. */
function checkRanges(p: Partial<PlaylistValues>): void {
  const ranges = [
    ["play_progress_min", "play_progress_max"],
    ["min_duration", "max_duration"],
  ] as const;
  for (const [lo, hi] of ranges) {
    if (p[lo] != null && p[hi] != null && p[lo] > p[hi]) throw new BadRequestError(`${lo} must not be above ${hi}`);
  }
}

/** The playlist's filter fields, in FILTER_FIELDS order. */
function filtersOf(p: PlaylistDoc): Pick<PlaylistDoc, FilterField> {
  return Object.fromEntries(FILTER_FIELDS.map((f) => [f, p[f]])) as Pick<PlaylistDoc, FilterField>;
}

function selectionOf(p: PlaylistDoc): EpisodeSelection {
  return { seed: p._id, ...filtersOf(p) };
}

/** A playlist as get_playlists and get_playlist_episodes show it. */
/** Episodes get_playlists shows of each playlist. */
const PREVIEW_EPISODES = 3;

function view(p: PlaylistDoc, episode_count: number): PlaylistView {
  return {
    playlist_id: p._id,
    user_id: p.user_id,
    name: p.name,
    description: p.description,
    is_system_playlist: p.is_system,
    ...filtersOf(p),
    icon_name: p.icon_name,
    created: new Date(p.created_at).toISOString(),
    last_updated: new Date(p.updated_at).toISOString(),
    episode_count,
  };
}

/** A playlist's episode with the queue fields of a queue-style item. */
type WithQueue<E> = E & { queued: boolean; queueposition: number | null; queuedate: string | null };

interface PlaylistsMethods {
  insertPlaylist(user_id: number, values: PlaylistValues, system_key?: string): Promise<number>;
  ensureSystem(user_id: number): Promise<number>;
  ownPlaylist(user_id: number, playlist_id: number): Promise<PlaylistDoc>;
  select(ctx: Caller, user_id: number, lists: PlaylistDoc[], page: Omit<SelectEpisodesParams, "user_id" | "selections">): Promise<SelectionResult[]>;
  queuePositions(ctx: Caller, user_id: number, episodes: SelectedEpisode[]): Promise<QueuePositionsResult>;
  withQueue<E extends Omit<SelectedEpisode, "is_video">>(e: E, queued: QueuePositionsResult): WithQueue<E>;
}

type PlaylistsThis = DbThis<PlaylistDoc> & PlaylistsMethods;

const PlaylistsService: ServiceSchema<Record<string, never>, PlaylistsThis> = {
  name: "playlists",
  mixins: [
    DbMixin({
      name: "playlists",
      indexes: [{ fields: { user_id: 1 } }, { fields: { system_key: 1 }, unique: true, sparse: true }],
    }),
  ],
  actions: {
    /** POST /api/data/create_playlist */
    create_playlist: {
      params: { user_id: id, ...RECORD },
      response: CreatePlaylistAnswer,
      async handler(this: PlaylistsThis, ctx: Ctx<{ user_id: number } & RecordParams>): Promise<CreatePlaylistAnswer> {
        const values = recordFields(ctx.params);
        checkRanges(values);
        // The schema requires every field of the record (RECORD).
        const playlist_id: number = await this.insertPlaylist(ctx.params.user_id, values as PlaylistValues);
        return { detail: "Playlist created", playlist_id };
      },
    },
    /** PATCH /api/data/update_playlist: changes the fields sent. */
    update_playlist: {
      params: { user_id: id, playlist_id: id, ...PATCH },
      response: DetailAnswer,
      async handler(this: PlaylistsThis, ctx: Ctx<{ user_id: number; playlist_id: number } & RecordParams>): Promise<Static<typeof DetailAnswer>> {
        const { user_id, playlist_id } = ctx.params;
        const changes = recordFields(ctx.params);
        const current: PlaylistDoc = await this.ownPlaylist(user_id, playlist_id);
        checkRanges({ ...current, ...changes });
        await this.adapter.updateMany({ _id: playlist_id }, { $set: { ...changes, updated_at: new Date() } });
        return { detail: "Playlist updated" };
      },
    },
    /** DELETE /api/data/delete_playlist (and POST, as PinePods' mobile app sends it): a system playlist stays (403). */
    delete_playlist: {
      params: { user_id: id, playlist_id: id },
      response: DetailAnswer,
      async handler(this: PlaylistsThis, ctx: Ctx<{ user_id: number; playlist_id: number }>): Promise<Static<typeof DetailAnswer>> {
        const p: PlaylistDoc = await this.ownPlaylist(ctx.params.user_id, ctx.params.playlist_id);
        if (p.is_system) throw new ForbiddenError("System playlists cannot be deleted");
        await this.adapter.removeMany({ _id: p._id });
        return { detail: "Playlist deleted" };
      },
    },
    /** GET /api/data/get_playlists: every playlist of the user with its episode count, system ones first. */
    get_playlists: {
      idempotent: true,
      params: { user_id: id },
      response: PlaylistsAnswer,
      async handler(this: PlaylistsThis, ctx: Ctx<{ user_id: number }>): Promise<PlaylistsAnswer> {
        const { user_id } = ctx.params;
        await this.ensureSystem(user_id);
        const lists: PlaylistDoc[] = await this.adapter.find({ query: { user_id }, sort: ["-is_system", "_id"] });
        // The first episodes of each are the web client's playlist card (preview_episodes).
        const results: SelectionResult[] = await this.select(ctx, user_id, lists, { limit: PREVIEW_EPISODES });
        return {
          playlists: lists.map((p, n) => ({
            ...view(p, results[n].total),
            preview_episodes: results[n].episodes.map((e) => ({ title: e.episodetitle, artwork: e.episodeartwork })),
          })),
        };
      },
    },
    /** GET /api/data/get_playlist_episodes: one page of a playlist, in its order. */
    get_playlist_episodes: {
      idempotent: true,
      params: { user_id: id, playlist_id: id, ...paging },
      response: PlaylistEpisodesAnswer,
      async handler(this: PlaylistsThis, ctx: Ctx<{ user_id: number; playlist_id: number } & Paging>): Promise<PlaylistEpisodesAnswer> {
        const { user_id, playlist_id, offset = 0, limit = 100 } = ctx.params;
        const p: PlaylistDoc = await this.ownPlaylist(user_id, playlist_id);
        const [res]: SelectionResult[] = await this.select(ctx, user_id, [p], { offset, limit });
        const queued = await this.queuePositions(ctx, user_id, res.episodes);
        // is_video serves the selection's filters; this answer has no such field.
        const episodes = res.episodes.map(({ is_video: _video, ...e }) => this.withQueue(e, queued));
        return { playlist_info: view(p, res.total), episodes, total: res.total };
      },
    },
    /** POST /api/data/get_next_playlist_episode: the episode after episode_id in the playlist (queue-style item). */
    get_next_playlist_episode: {
      params: { user_id: id, playlist_id: id, episode_id: id },
      response: QueueItem,
      async handler(this: PlaylistsThis, ctx: Ctx<{ user_id: number; playlist_id: number; episode_id: number }>): Promise<QueueItem> {
        const { user_id, playlist_id, episode_id } = ctx.params;
        const p: PlaylistDoc = await this.ownPlaylist(user_id, playlist_id);
        const [res]: SelectionResult[] = await this.select(ctx, user_id, [p], { after_episode_id: episode_id });
        if (!res.episodes.length) throw new NotFoundError("No next episode in this playlist");
        return this.withQueue(res.episodes[0], await this.queuePositions(ctx, user_id, res.episodes));
      },
    },
    /**
     * GET /api/data/update_playlists (admin): playlists are worked out when read, so what is left to
     * update is giving every account (also those older than this service) its system playlists.
     */
    update_playlists: {
      idempotent: true,
      response: UpdatePlaylistsAnswer,
      async handler(this: PlaylistsThis, ctx: Ctx): Promise<UpdatePlaylistsAnswer> {
        const ids: number[] = await userIds(ctx, {});
        let created = 0;
        for (const user_id of ids) created += await this.ensureSystem(user_id);
        return { detail: "Playlists updated", users: ids.length, system_playlists_created: created };
      },
    },
  },
  events: {
    async [userCreated.eventName](this: PlaylistsThis, ctx: Ctx<UserEvent>) {
      await this.ensureSystem(ctx.params.user_id);
    },
    "user.removed": userRemovedEvent({ adapter: "user_id" }),
    /** A user left a podcast: their playlists stop naming it (a list of only it then selects nothing, not everything). */
    async [subscriptionsRemoved.eventName](this: PlaylistsThis, ctx: Ctx<{ user_id: number; podcast_id: number }>) {
      const { user_id, podcast_id } = ctx.params;
      await this.adapter.updateMany({ user_id, podcast_ids: podcast_id }, { $pull: { podcast_ids: podcast_id } });
    },
  },
  methods: {
    async insertPlaylist(this: PlaylistsThis, user_id: number, values: PlaylistValues, system_key?: string): Promise<number> {
      const now = new Date();
      const doc: PlaylistDoc = {
        ...SYSTEM_DEFAULTS,
        ...values,
        _id: await this.nextId("playlists"),
        user_id,
        is_system: !!system_key,
        ...(system_key ? { system_key } : {}),
        created_at: now,
        updated_at: now,
      };
      await this.adapter.insert(doc);
      return doc._id;
    },
    /** Adds the system playlists the user lacks; answers how many it made. */
    async ensureSystem(this: PlaylistsThis, user_id: number): Promise<number> {
      const have: PlaylistDoc[] = await this.adapter.find({ query: { user_id, is_system: true } });
      const keys = new Set(have.map((p) => p.system_key));
      let made = 0;
      for (const { slug, ...values } of SYSTEM_PLAYLISTS) {
        if (keys.has(`${user_id}:${slug}`)) continue;
        try {
          await this.insertPlaylist(user_id, values as PlaylistValues, `${user_id}:${slug}`);
          made++;
        } catch (err) {
          if (!isDuplicateKeyError(err)) throw err; // made meanwhile by another request or node
        }
      }
      return made;
    },
    /** The playlist, when it is user_id's: 404 unknown, 403 another user's (also for an admin acting as user_id). */
    async ownPlaylist(this: PlaylistsThis, user_id: number, playlist_id: number): Promise<PlaylistDoc> {
      const p: PlaylistDoc | null = await this.adapter.findOne({ _id: playlist_id });
      if (!p) throw new NotFoundError("Playlist not found");
      if (p.user_id !== user_id) throw new ForbiddenError("This playlist belongs to another user");
      return p;
    },
    select(
      this: PlaylistsThis,
      ctx: Caller,
      user_id: number,
      lists: PlaylistDoc[],
      page: Omit<SelectEpisodesParams, "user_id" | "selections">,
    ): Promise<SelectionResult[]> {
      if (!lists.length) return Promise.resolve([]);
      return selectEpisodes(ctx, { user_id, selections: lists.map(selectionOf), ...page });
    },
    queuePositions(this: PlaylistsThis, ctx: Caller, user_id: number, episodes: SelectedEpisode[]): Promise<QueuePositionsResult> {
      if (!episodes.length) return Promise.resolve({});
      return queuePositions(ctx, { user_id, episode_ids: episodes.map((e) => e.episodeid) });
    },
    /** An episode with the queue fields of a queue-style item. */
    withQueue<E extends Omit<SelectedEpisode, "is_video">>(this: PlaylistsThis, e: E, queued: QueuePositionsResult): WithQueue<E> {
      const q = queued[e.episodeid];
      return { ...e, queued: !!q, queueposition: q?.position ?? null, queuedate: q?.queued_at ?? null };
    },
  },
};

export default PlaylistsService;
