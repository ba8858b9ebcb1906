/**
 * Episodes: the `episodes` collection (one record per feed item, shared by every subscriber of the
 * feed) and `episode_states` (what one user did with one episode: position, completed, saved).
 *
 * Feed items reach this service only through sync_episodes, which matches them to stored episodes by
 * guid, then enclosure URL without its query string, then title, so a refresh never duplicates an
 * episode. Everything a user reads is scoped by their subscriptions (asked of the podcasts service in
 * one call per request), and an episode older than the subscription's feed_cutoff_days is hidden from
 * that user only: the episode record is shared, so the cutoff is applied when reading.
 */
import type { Context, ServiceSchema } from "moleculer";
import { DbMixin } from "../shared/db.mixin";
import { NotFoundError } from "../shared/errors";
import type { ParsedEpisode } from "../shared/feed-parser";
import type { AuthUser } from "../shared/types";
import type { UserEvent } from "../shared/contracts/users";
import type { PodcastUserStats, SyncResult } from "../shared/contracts/episodes";
import type { SubscriptionView } from "../shared/contracts/podcasts";
import { syncActions } from "./episodes.parts/sync.actions";
import { selectEpisodesActions } from "./episodes.parts/select-episodes";

/** A stored episode. */
export interface EpisodeDoc {
  _id: number;
  podcast_id: number;
  guid: string;
  /** Enclosure URL without its query string: the second matching key across refreshes. */
  enclosure_key: string | null;
  title: string;
  description: string | null;
  pub_date: Date | null;
  /** Seconds; 0 when the feed does not say. */
  duration: number;
  enclosure_url: string | null;
  enclosure_type: string | null;
  enclosure_length: number;
  artwork: string | null;
  link: string | null;
  author: string | null;
  explicit: boolean;
  season: number | null;
  episode: number | null;
  episode_type: string | null;
  /** Podcasting 2.0 item data as the parser returns it. */
  p20: Pick<ParsedEpisode, (typeof P20_FIELDS)[number]>;
  created_at: Date;
}

/** One user's state of one episode. _id is "<user_id>:<episode_id>", so a state is written with one upsert. */
export interface EpisodeStateDoc {
  _id: string;
  user_id: number;
  episode_id: number;
  podcast_id: number;
  /** Seconds listened (the playback position). */
  listen_duration: number;
  completed: boolean;
  saved: boolean;
  last_listened_at: Date | null;
}

const P20_FIELDS = [
  "transcripts", "chapters", "soundbites", "persons", "values", "podcast_season", "podcast_episode",
  "alternate_enclosures", "locations", "license", "images", "txt", "social_interacts", "keywords", "itunes_block",
] as const;
/** Stored fields a refresh may change; compared to decide whether an episode is written again. */
const SYNCED_FIELDS = [
  "guid", "enclosure_key", "title", "description", "pub_date", "duration", "enclosure_url", "enclosure_type",
  "enclosure_length", "artwork", "link", "author", "explicit", "season", "episode", "episode_type", "p20",
] as const;
/** Episodes in get_podcast_details' recent_episodes. */
const RECENT_DETAILS = 10;
const DAY_MS = 86_400_000;

const id = { type: "number", integer: true, positive: true, convert: true };
const optionalBool = { type: "boolean", convert: true, optional: true };
const paging = {
  limit: { type: "number", integer: true, min: 1, max: 1000, convert: true, optional: true },
  offset: { type: "number", integer: true, min: 0, convert: true, optional: true },
};

function enclosureKey(url: string | null): string | null {
  if (!url) return null;
  const q = url.search(/[?#]/);
  return q === -1 ? url : url.slice(0, q);
}

function toDate(iso: string | null): Date | null {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

function iso(d: Date | null | undefined): string | null {
  return d ? new Date(d).toISOString() : null;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The stored form of a parsed item (without _id, podcast_id, created_at). */
function fromParsed(item: ParsedEpisode): Omit<EpisodeDoc, "_id" | "podcast_id" | "created_at"> {
  const p20 = {} as EpisodeDoc["p20"];
  for (const f of P20_FIELDS) (p20 as any)[f] = item[f];
  return {
    guid: item.guid,
    enclosure_key: enclosureKey(item.enclosure_url),
    title: item.title ?? "",
    description: item.description,
    pub_date: toDate(item.pub_date),
    duration: item.duration ?? 0,
    enclosure_url: item.enclosure_url,
    enclosure_type: item.enclosure_type,
    enclosure_length: item.enclosure_length,
    artwork: item.image,
    link: item.link,
    author: item.author,
    explicit: item.explicit,
    season: item.podcast_season?.number ?? item.season,
    episode: item.podcast_episode?.number ?? item.episode,
    episode_type: item.episode_type,
    p20,
  };
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) return iso(a as Date) === iso(b as Date);
  if (a !== null && typeof a === "object") return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}

/** "Played": completed, or listened to 90% or to within 30 s of the end (spec/ROUTES.md). */
export function isPlayed(ep: EpisodeDoc, st: EpisodeStateDoc | undefined): boolean {
  if (!st) return false;
  if (st.completed) return true;
  return ep.duration > 0 && (st.listen_duration >= ep.duration * 0.9 || ep.duration - st.listen_duration <= 30);
}

/** The earliest pub_date a subscriber sees, or null when the cutoff keeps everything. */
function cutoffDate(days: number | undefined): Date | null {
  return days && days > 0 ? new Date(Date.now() - days * DAY_MS) : null;
}

/**
 * Query of the episodes of some podcasts that one user sees, each podcast with its own cutoff; `extra`
 * conditions and `since` (pub_date after) go into every branch.
 */
export function visibleQuery(subs: Pick<SubscriptionView, "podcast_id" | "feed_cutoff_days">[], extra: Record<string, unknown> = {}, since?: Date): any {
  const after = (cutoff: Date | null) => {
    const d = cutoff && since ? (cutoff > since ? cutoff : since) : cutoff ?? since;
    return d ? { pub_date: { $gt: d } } : {};
  };
  const keepAll = subs.filter((s) => !cutoffDate(s.feed_cutoff_days)).map((s) => s.podcast_id);
  const clauses: any[] = keepAll.length ? [{ podcast_id: { $in: keepAll }, ...after(null), ...extra }] : [];
  for (const s of subs) {
    const cutoff = cutoffDate(s.feed_cutoff_days);
    if (cutoff) clauses.push({ podcast_id: s.podcast_id, ...after(cutoff), ...extra });
  }
  if (clauses.length === 0) return { podcast_id: { $in: [] } };
  return clauses.length === 1 ? clauses[0] : { $or: clauses };
}

const EpisodesService: ServiceSchema = {
  name: "episodes",
  mixins: [
    DbMixin(
      { name: "episodes", indexes: [{ fields: { podcast_id: 1 } }, { fields: { guid: 1 } }, { fields: { pub_date: 1 } }] },
      [{ name: "episode_states", indexes: [{ fields: { user_id: 1 } }, { fields: { podcast_id: 1 } }] }],
    ),
  ],
  actions: {
    /** GET /api/data/podcast_episodes: one podcast's episodes for a subscriber, paged. */
    podcast_episodes: {
      params: {
        user_id: id,
        podcast_id: id,
        ...paging,
        sort_by: { type: "enum", values: ["pub_date", "title", "duration", "listen_progress"], optional: true },
        sort_order: { type: "enum", values: ["asc", "desc"], optional: true },
        search: { type: "string", max: 200, optional: true },
        filter: { type: "enum", values: ["all", "unplayed", "played", "in_progress", "saved"], optional: true },
      },
      async handler(this: any, ctx: Context<any, { user?: AuthUser }>) {
        const p = ctx.params;
        const sub: SubscriptionView = await this.access(ctx, p.user_id, p.podcast_id);
        const query = visibleQuery([sub], p.search ? { title: { $regex: new RegExp(escapeRegex(p.search), "i") } } : {});
        const episodes: EpisodeDoc[] = await this.adapter.find({ query });
        const states = await this.statesOf(p.user_id, episodes.map((e) => e._id));
        const filter = p.filter ?? "all";
        const kept = episodes.filter((e) => {
          const st = states.get(e._id);
          if (filter === "played") return isPlayed(e, st);
          if (filter === "unplayed") return !isPlayed(e, st);
          if (filter === "in_progress") return !!st && st.listen_duration > 0 && !isPlayed(e, st);
          if (filter === "saved") return !!st?.saved;
          return true;
        });
        const dir = (p.sort_order ?? "desc") === "asc" ? 1 : -1;
        const key = (e: EpisodeDoc): number | string => {
          switch (p.sort_by ?? "pub_date") {
            case "title": return e.title.toLowerCase();
            case "duration": return e.duration;
            case "listen_progress": return states.get(e._id)?.listen_duration ?? 0;
            default: return e.pub_date ? new Date(e.pub_date).getTime() : 0;
          }
        };
        kept.sort((a, b) => {
          const ka = key(a), kb = key(b);
          return ka < kb ? -dir : ka > kb ? dir : (a._id - b._id) * dir;
        });
        const offset = p.offset ?? 0;
        const page = kept.slice(offset, offset + (p.limit ?? kept.length));
        return { episodes: page.map((e) => this.listItem(e, sub, states.get(e._id))), total: kept.length };
      },
    },
    /** GET /api/data/return_episodes/{user_id}: the newest episodes of all the user's podcasts. */
    return_episodes: {
      params: { user_id: id, ...paging, since: { type: "date", convert: true, optional: true } },
      async handler(this: any, ctx: Context<any>) {
        const p = ctx.params;
        const subs: SubscriptionView[] = await ctx.call("podcasts.user_subscriptions", { user_id: p.user_id });
        const where = visibleQuery(subs, {}, p.since);
        const [episodes, total] = await Promise.all([
          this.adapter.find({ query: where, sort: ["-pub_date", "-_id"], offset: p.offset ?? 0, limit: p.limit ?? 100 }),
          this.adapter.count({ query: where }),
        ]);
        const states = await this.statesOf(p.user_id, episodes.map((e: EpisodeDoc) => e._id));
        const byPodcast = new Map(subs.map((s) => [s.podcast_id, s]));
        return { episodes: episodes.map((e: EpisodeDoc) => this.listItem(e, byPodcast.get(e.podcast_id)!, states.get(e._id))), total };
      },
    },
    /** GET /api/data/check_episode_in_db/{user_id}: is an episode with this title and audio URL in the user's podcasts. */
    check_episode_in_db: {
      params: { user_id: id, episode_title: { type: "string", max: 1000 }, episode_url: { type: "string", max: 4000 } },
      async handler(this: any, ctx: Context<any>) {
        const found = await this.findByNameAndUrl(ctx, ctx.params.user_id, ctx.params.episode_title, ctx.params.episode_url);
        return { episode_in_db: !!found };
      },
    },
    /** GET /api/data/get_podcast_id_from_ep_name */
    get_podcast_id_from_ep_name: {
      params: { user_id: id, episode_name: { type: "string", max: 1000 }, episode_url: { type: "string", max: 4000 } },
      async handler(this: any, ctx: Context<any>) {
        const found: EpisodeDoc | null = await this.findByNameAndUrl(ctx, ctx.params.user_id, ctx.params.episode_name, ctx.params.episode_url);
        if (!found) throw new NotFoundError("Episode not found in your podcasts");
        return { podcast_id: found.podcast_id, episode_id: found._id };
      },
    },
    /** GET /api/data/get_podcast_id_from_ep_id */
    get_podcast_id_from_ep_id: {
      params: { user_id: id, episode_id: id, is_vidsite: optionalBool },
      async handler(this: any, ctx: Context<any>) {
        const ep: EpisodeDoc = await this.accessibleEpisode(ctx, ctx.params.user_id, ctx.params.episode_id);
        return { podcast_id: ep.podcast_id };
      },
    },
    /** GET /api/data/get_episode_id_ep_name: the episode of the user's podcasts with this audio URL (and title, when given). */
    get_episode_id_ep_name: {
      params: { user_id: id, episode_url: { type: "string", max: 4000 }, episode_title: { type: "string", max: 1000, optional: true } },
      async handler(this: any, ctx: Context<any>) {
        const found: EpisodeDoc | null = await this.findByNameAndUrl(ctx, ctx.params.user_id, ctx.params.episode_title, ctx.params.episode_url);
        if (!found) throw new NotFoundError("Episode not found in your podcasts");
        return { episode_id: found._id };
      },
    },
    /** POST /api/data/update_episode_duration: corrects a duration the feed got wrong (for every subscriber). */
    update_episode_duration: {
      params: { episode_id: id, new_duration: { type: "number", integer: true, min: 0, max: 2147483647, convert: true }, is_vidsite: optionalBool },
      async handler(this: any, ctx: Context<any, { user?: AuthUser }>) {
        const ep: EpisodeDoc = await this.accessibleEpisode(ctx, ctx.meta.user!.id, ctx.params.episode_id);
        await this.adapter.updateMany({ _id: ep._id }, { $set: { duration: ctx.params.new_duration } });
        return { detail: "Episode duration updated" };
      },
    },

    // --- Internal actions (not in the route table) ---

    /**
     * Stores a podcast's feed items: matched ones are updated only when a field changed, new ones are
     * inserted and, with announce (refreshes; not a first import), announced with `episodes.created`
     * { podcast_id, episode_ids }. Items missing from the feed are kept (feeds drop old items; users
     * keep their history).
     */
    sync_episodes: {
      visibility: "public",
      params: { podcast_id: id, episodes: { type: "array", items: "object" }, announce: { type: "boolean", optional: true } },
      async handler(this: any, ctx: Context<{ podcast_id: number; episodes: ParsedEpisode[]; announce?: boolean }>): Promise<SyncResult> {
        const { podcast_id } = ctx.params;
        const existing: EpisodeDoc[] = await this.adapter.find({ query: { podcast_id } });
        const byGuid = new Map<string, EpisodeDoc>();
        const byEnclosure = new Map<string, EpisodeDoc>();
        const byTitle = new Map<string, EpisodeDoc>();
        for (const e of existing) {
          byGuid.set(e.guid, e);
          if (e.enclosure_key) byEnclosure.set(e.enclosure_key, e);
          if (e.title) byTitle.set(e.title, e);
        }
        const feedGuids = new Set(ctx.params.episodes.map((e) => e.guid));
        const matched = new Set<number>();
        const inserts: EpisodeDoc[] = [];
        let updated = 0;
        const now = new Date();
        for (const item of ctx.params.episodes) {
          const next = fromParsed(item);
          // Enclosure and title only match an episode whose guid left the feed: a rerun with the
          // same title but its own guid is a new episode, a re-guided one is not.
          const orphan = (c: EpisodeDoc | undefined) => (c && !feedGuids.has(c.guid) ? c : undefined);
          const candidates = [
            byGuid.get(next.guid),
            next.enclosure_key ? orphan(byEnclosure.get(next.enclosure_key)) : undefined,
            next.title ? orphan(byTitle.get(next.title)) : undefined,
          ];
          const match = candidates.find((c) => c && !matched.has(c._id));
          if (match) {
            matched.add(match._id);
            const changes: Record<string, unknown> = {};
            for (const f of SYNCED_FIELDS) if (!sameValue((match as any)[f], (next as any)[f])) changes[f] = (next as any)[f];
            // A duration corrected by update_episode_duration stays when the feed still has none.
            if (changes.duration === 0) delete changes.duration;
            if (Object.keys(changes).length) {
              await this.adapter.updateMany({ _id: match._id }, { $set: changes });
              updated++;
            }
            continue;
          }
          // Items repeated inside one feed document are stored once.
          if (inserts.some((d) => d.guid === next.guid)) continue;
          const doc: EpisodeDoc = { _id: await this.nextId("episodes"), podcast_id, ...next, created_at: now };
          inserts.push(doc);
          byGuid.set(doc.guid, doc);
          matched.add(doc._id);
        }
        if (inserts.length) await this.adapter.insertMany(inserts);
        const all = [...existing, ...inserts];
        let newest: Date | null = null;
        for (const e of all) if (e.pub_date && (!newest || e.pub_date > newest)) newest = e.pub_date;
        const created_ids = inserts.map((d) => d._id);
        if (created_ids.length && ctx.params.announce) ctx.emit("episodes.created", { podcast_id, episode_ids: created_ids });
        if (created_ids.length || updated) this.logger.info("episodes synced", { podcast_id, created: created_ids.length, updated });
        return { created_ids, updated, total: all.length, last_episode_date: iso(newest) };
      },
    },
    /** The newest visible episode of each podcast for one user, batched: first_episode_id of add_podcast. */
    newest_episode_ids: {
      visibility: "public",
      params: { podcast_ids: { type: "array", items: "number" } },
      async handler(this: any, ctx: Context<{ podcast_ids: number[] }>): Promise<Record<number, number>> {
        const out: Record<number, number> = {};
        for (const podcast_id of ctx.params.podcast_ids) {
          const [first] = await this.adapter.find({ query: { podcast_id }, sort: ["-pub_date", "-_id"], limit: 1 });
          if (first) out[podcast_id] = first._id;
        }
        return out;
      },
    },
    /** get_podcast_details' recent_episodes with the user's state. */
    recent_episodes: {
      visibility: "public",
      params: { user_id: id, podcast_id: id, feed_cutoff_days: { type: "number", integer: true, min: 0 } },
      async handler(this: any, ctx: Context<any>) {
        const query = visibleQuery([ctx.params]);
        const episodes: EpisodeDoc[] = await this.adapter.find({ query, sort: ["-pub_date", "-_id"], limit: RECENT_DETAILS });
        const states = await this.statesOf(ctx.params.user_id, episodes.map((e) => e._id));
        return episodes.map((e) => {
          const st = states.get(e._id);
          return {
            episode_id: e._id,
            title: e.title,
            description: e.description,
            pub_date: iso(e.pub_date),
            duration: e.duration,
            file_size: e.enclosure_length,
            audio_url: e.enclosure_url,
            is_played: isPlayed(e, st),
            is_saved: !!st?.saved,
            progress: st?.listen_duration ?? 0,
          };
        });
      },
    },
    /** return_pods_extra's per podcast figures for one user, batched over their subscriptions. */
    user_podcast_stats: {
      visibility: "public",
      params: { user_id: id, subscriptions: { type: "array", items: "object" } },
      async handler(this: any, ctx: Context<any>): Promise<Record<number, PodcastUserStats>> {
        const subs: SubscriptionView[] = ctx.params.subscriptions;
        const episodes: EpisodeDoc[] = await this.adapter.find({ query: visibleQuery(subs) });
        const states = await this.statesOf(ctx.params.user_id, episodes.map((e) => e._id));
        const out: Record<number, PodcastUserStats> = {};
        for (const s of subs) out[s.podcast_id] = { total_episodes: 0, unplayed_episodes: 0, last_played: null, total_listen_time: 0 };
        for (const e of episodes) {
          const o = out[e.podcast_id];
          const st = states.get(e._id);
          o.total_episodes++;
          if (!isPlayed(e, st)) o.unplayed_episodes++;
          if (st) {
            o.total_listen_time += st.listen_duration;
            const at = iso(st.last_listened_at);
            if (at && (!o.last_played || at > o.last_played)) o.last_played = at;
          }
        }
        return out;
      },
    },
    /** Writes one user's state of one episode (position, completed, saved); later issues build queue/history on it. */
    update_state: {
      visibility: "public",
      params: {
        user_id: id,
        episode_id: id,
        listen_duration: { type: "number", min: 0, optional: true },
        completed: { type: "boolean", optional: true },
        saved: { type: "boolean", optional: true },
      },
      async handler(this: any, ctx: Context<any>) {
        const { user_id, episode_id, listen_duration, completed, saved } = ctx.params;
        const ep: EpisodeDoc | null = await this.adapter.findOne({ _id: episode_id });
        if (!ep) throw new NotFoundError("Episode not found");
        const set: Partial<EpisodeStateDoc> = { user_id, episode_id, podcast_id: ep.podcast_id };
        if (listen_duration !== undefined) Object.assign(set, { listen_duration, last_listened_at: new Date() });
        if (completed !== undefined) set.completed = completed;
        if (saved !== undefined) set.saved = saved;
        const _id = `${user_id}:${episode_id}`;
        const current: EpisodeStateDoc | null = await this.stores.episode_states.findOne({ _id });
        if (current) await this.stores.episode_states.updateMany({ _id }, { $set: set });
        else await this.stores.episode_states.insert({ _id, listen_duration: 0, completed: false, saved: false, last_listened_at: null, ...set });
        return { success: true };
      },
    },
    ...syncActions,
    ...selectEpisodesActions,
  },
  events: {
    /** A user left a podcast: their state of its episodes goes with it. */
    async "subscriptions.removed"(this: any, ctx: Context<{ user_id: number; podcast_id: number }>) {
      await this.stores.episode_states.removeMany({ user_id: ctx.params.user_id, podcast_id: ctx.params.podcast_id });
    },
    /** The account is gone: its episode states go too. */
    "user.removed": {
      params: { user_id: "number" },
      async handler(this: any, ctx: Context<UserEvent>) {
        await this.stores.episode_states.removeMany({ user_id: ctx.params.user_id });
      },
    },
  },
  methods: {
    /** The user's subscription of a podcast; an admin may read any existing podcast. 404 otherwise. */
    async access(this: any, ctx: Context<any, { user?: AuthUser }>, user_id: number, podcast_id: number): Promise<SubscriptionView> {
      const [sub]: SubscriptionView[] = await ctx.call("podcasts.user_subscriptions", { user_id, podcast_ids: [podcast_id], include_unsubscribed: !!ctx.meta.user?.isAdmin });
      if (!sub) throw new NotFoundError("Podcast not found in your subscriptions");
      return sub;
    },
    async accessibleEpisode(this: any, ctx: Context<any>, user_id: number, episode_id: number): Promise<EpisodeDoc> {
      const ep: EpisodeDoc | null = await this.adapter.findOne({ _id: episode_id });
      if (!ep) throw new NotFoundError("Episode not found");
      await this.access(ctx, user_id, ep.podcast_id);
      return ep;
    },
    /** An episode of the user's podcasts with this audio URL and (when given) title. */
    async findByNameAndUrl(this: any, ctx: Context<any>, user_id: number, title: string | undefined, url: string): Promise<EpisodeDoc | null> {
      const subs: SubscriptionView[] = await ctx.call("podcasts.user_subscriptions", { user_id });
      return this.adapter.findOne(visibleQuery(subs, title === undefined ? { enclosure_url: url } : { enclosure_url: url, title }));
    },
    async statesOf(this: any, user_id: number, episode_ids: number[]): Promise<Map<number, EpisodeStateDoc>> {
      if (!episode_ids.length) return new Map();
      const ids = episode_ids.map((e) => `${user_id}:${e}`);
      const states: EpisodeStateDoc[] = await this.stores.episode_states.find({ query: { _id: { $in: ids } } });
      return new Map(states.map((s) => [s.episode_id, s]));
    },
    /** An episode in list operations (podcast_episodes, return_episodes). */
    listItem(e: EpisodeDoc, sub: SubscriptionView, st: EpisodeStateDoc | undefined) {
      return {
        episodeid: e._id,
        podcastid: e.podcast_id,
        podcastname: sub.title,
        episodetitle: e.title,
        episodepubdate: iso(e.pub_date),
        episodedescription: e.description,
        episodeartwork: e.artwork ?? sub.artwork_url,
        episodeurl: e.enclosure_url,
        episodeduration: e.duration,
        listenduration: st?.listen_duration ?? null,
        completed: !!st?.completed,
        saved: !!st?.saved,
        is_vidsite: !!sub.is_vidsite,
      };
    },
  },
};

export default EpisodesService;
