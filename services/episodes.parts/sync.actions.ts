/**
 * Internal actions for the notifications and sync services: episode summaries, and a user's play
 * positions read and written by feed URL and enclosure URL (how sync servers name episodes).
 */
import type { ServiceActionsSchema } from "moleculer";
import type { EpisodeSummary, SyncEpisodeRef, SyncEpisodeState, SyncNewEpisode } from "../../shared/contracts/episodes";
import { episodesPositionsChanged } from "../../shared/contracts/episodes";
import type { SyncFeed } from "../../shared/contracts/podcasts";
import { isDuplicateKeyError } from "../../shared/db.mixin";
import type { Ctx } from "../../shared/service-types";
import { type EpisodeDoc, type EpisodeStateDoc, idSlices } from "./model";
import type { EpisodesThis } from "./this";

const id = { type: "number", integer: true, positive: true, convert: true };
const feeds = { type: "array", items: "object", max: 100_000 };
const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);
const noQuery = (url: string) => url.split("?")[0];
/** Feed URL -> podcast: a feed that moved answers to its former URLs too (what devices sent before the move). */
const podcastsOf = (feeds: SyncFeed[]) => new Map(feeds.flatMap((f) => [...(f.former_urls ?? []), f.feed_url].map((url) => [url, f.podcast_id] as const)));

/** An episode of a podcast by its enclosure URL as a sync server names it (exactly, else without the query string). */
async function episodeByUrl(svc: EpisodesThis, podcast_id: number, url: string): Promise<EpisodeDoc | null> {
  return (await svc.adapter.findOne({ podcast_id, enclosure_url: url })) ?? (await svc.adapter.findOne({ podcast_id, enclosure_key: noQuery(url) }));
}

export const syncActions: ServiceActionsSchema = {
  episode_summaries: {
    visibility: "public",
    params: { episode_ids: { type: "array", items: "number", max: 10_000 } },
    async handler(this: EpisodesThis, ctx: Ctx<{ episode_ids: number[] }>): Promise<EpisodeSummary[]> {
      const eps = await this.adapter.find({ query: { _id: { $in: ctx.params.episode_ids } }, sort: ["-pub_date", "-_id"] });
      return eps.map((e) => ({ episode_id: e._id, podcast_id: e.podcast_id, title: e.title, url: e.enclosure_url, pub_date: iso(e.pub_date) }));
    },
  },
  /** Episodes of these feeds stored here after `since` (GET /api/2/updates' updates), in one read. */
  sync_new_episodes: {
    visibility: "public",
    params: { feeds, since: { type: "date", convert: true } },
    async handler(this: EpisodesThis, ctx: Ctx<{ feeds: SyncFeed[]; since: Date }>): Promise<SyncNewEpisode[]> {
      const urls = new Map(ctx.params.feeds.map((f) => [f.podcast_id, f.feed_url]));
      if (!urls.size) return [];
      const fields = ["podcast_id", "guid", "title", "description", "link", "enclosure_url", "pub_date", "created_at"] as const;
      const eps = await this.findFields(this.adapter, { podcast_id: { $in: [...urls.keys()] }, created_at: { $gt: ctx.params.since } }, fields);
      return eps.flatMap((e) =>
        !e.enclosure_url
          ? []
          : [
              {
                podcast_url: urls.get(e.podcast_id)!,
                url: e.enclosure_url,
                guid: e.guid,
                title: e.title,
                description: e.description ?? "",
                website: e.link,
                released: iso(e.pub_date ?? e.created_at)!.slice(0, 19),
              },
            ],
      );
    },
  },
  /**
   * Positions the user set after `since` (ISO) in these feeds, with each episode's guid when it has one:
   * what a sync uploads as play actions. With episode_ids, the states of those episodes (just changed:
   * their time is now when none was recorded).
   */
  sync_states: {
    visibility: "public",
    params: {
      user_id: id,
      since: { type: "date", convert: true, optional: true },
      feeds,
      episode_ids: { type: "array", items: "number", max: 100_000, optional: true },
    },
    async handler(this: EpisodesThis, ctx: Ctx<{ user_id: number; since?: Date; feeds: SyncFeed[]; episode_ids?: number[] }>): Promise<SyncEpisodeState[]> {
      const urls = new Map(ctx.params.feeds.map((f) => [f.podcast_id, f.feed_url]));
      const { user_id, episode_ids } = ctx.params;
      const states: EpisodeStateDoc[] = episode_ids
        ? (
            await this.findByIds(
              this.stores.episode_states,
              episode_ids.map((e) => `${user_id}:${e}`),
            )
          ).filter((s) => urls.has(s.podcast_id))
        : await this.stores.episode_states.find({
            query: { user_id, podcast_id: { $in: [...urls.keys()] }, last_listened_at: ctx.params.since ? { $gt: ctx.params.since } : { $ne: null } },
          });
      if (!states.length) return [];
      const eps = new Map(
        (
          await this.findByIds(
            this.adapter,
            states.map((s) => s.episode_id),
            ["enclosure_url", "duration", "guid"],
          )
        ).map((e) => [e._id, e]),
      );
      const now = new Date().toISOString();
      return states.flatMap((s) => {
        const e = eps.get(s.episode_id);
        if (!e?.enclosure_url) return [];
        return [
          {
            podcast_url: urls.get(s.podcast_id)!,
            episode_url: e.enclosure_url,
            position: Math.round(s.listen_duration),
            total: e.duration,
            completed: !!s.completed,
            timestamp: (episode_ids ? now : iso(s.last_listened_at))!,
            ...(e.guid ? { guid: e.guid } : {}),
          },
        ];
      });
    },
  },
  /** The episode ids of (feed URL, enclosure URL) pairs from a sync server, in these feeds; unknown ones are left out. */
  sync_episode_ids: {
    visibility: "public",
    params: { feeds, refs: { type: "array", items: "object", max: 100_000 } },
    async handler(this: EpisodesThis, ctx: Ctx<{ feeds: SyncFeed[]; refs: SyncEpisodeRef[] }>): Promise<(SyncEpisodeRef & { episode_id: number })[]> {
      const podcastOf = podcastsOf(ctx.params.feeds);
      const out: (SyncEpisodeRef & { episode_id: number })[] = [];
      for (const r of ctx.params.refs) {
        const podcast_id = podcastOf.get(r.podcast_url);
        const ep = podcast_id ? await episodeByUrl(this, podcast_id, r.episode_url) : null;
        if (ep) out.push({ ...r, episode_id: ep._id });
      }
      return out;
    },
  },
  /**
   * Play positions from a sync server: for each episode the newest action wins, and it is written only
   * when it is newer than the local position (docs/phone-sync.md "Sync with gPodder servers and Nextcloud"); one played to its end completes the episode.
   * Episodes are found by enclosure URL (exactly, else without the query string), else by guid. Nothing
   * local is ever deleted. A constant number of store reads whatever the number of states.
   */
  apply_sync_states: {
    visibility: "public",
    params: { user_id: id, feeds, states: { type: "array", items: "object", max: 100_000 }, origin: { type: "string", optional: true } },
    async handler(
      this: EpisodesThis,
      ctx: Ctx<{ user_id: number; feeds: SyncFeed[]; states: SyncEpisodeState[]; origin?: string }>,
    ): Promise<{ applied: number }> {
      const { user_id } = ctx.params;
      const podcastOf = podcastsOf(ctx.params.feeds);
      const newest = new Map<string, SyncEpisodeState>();
      for (const s of ctx.params.states) {
        const key = `${s.podcast_url}\n${noQuery(s.episode_url)}`;
        const seen = newest.get(key);
        if (podcastOf.has(s.podcast_url) && !(seen && seen.timestamp >= s.timestamp)) newest.set(key, s);
      }
      if (!newest.size) return { applied: 0 };
      const podcastIds = [...new Set([...newest.values()].map((s) => podcastOf.get(s.podcast_url)!))];
      const episodes = await this.findFields(this.adapter, { podcast_id: { $in: podcastIds } }, [
        "podcast_id",
        "enclosure_url",
        "enclosure_key",
        "former_keys",
        "guid",
      ]);
      const byRef = new Map<string, (typeof episodes)[number]>();
      // An enclosure's former addresses first: any episode's current one wins over them.
      for (const e of episodes) for (const key of e.former_keys ?? []) byRef.set(`${e.podcast_id}\n${key}`, e);
      // Exact URLs win over URLs without their query string, which win over guids.
      for (const field of ["guid", "enclosure_key", "enclosure_url"] as const)
        for (const e of episodes) if (e[field]) byRef.set(`${e.podcast_id}\n${field === "guid" ? "guid:" : ""}${e[field]}`, e);
      const found = (s: SyncEpisodeState, podcast_id: number) =>
        byRef.get(`${podcast_id}\n${s.episode_url}`) ??
        byRef.get(`${podcast_id}\n${noQuery(s.episode_url)}`) ??
        (s.guid ? byRef.get(`${podcast_id}\nguid:${s.guid}`) : undefined);
      const current = new Map(
        (await this.findFields(this.stores.episode_states, { user_id, podcast_id: { $in: podcastIds } }, ["episode_id", "last_listened_at"])).map((st) => [
          st.episode_id,
          st,
        ]),
      );
      const fresh: EpisodeStateDoc[] = [];
      const written = new Set<number>();
      try {
        for (const s of newest.values()) {
          const podcast_id = podcastOf.get(s.podcast_url)!;
          const ep = found(s, podcast_id);
          const at = new Date(s.timestamp);
          if (!ep || Number.isNaN(at.getTime()) || written.has(ep._id)) continue;
          const known = current.get(ep._id);
          if (known?.last_listened_at && new Date(known.last_listened_at) >= at) continue;
          const set = {
            user_id,
            episode_id: ep._id,
            podcast_id,
            listen_duration: s.position,
            last_listened_at: at,
            ...(s.completed ? { completed: true } : {}),
          };
          if (known) await this.stores.episode_states.updateMany({ _id: `${user_id}:${ep._id}` }, { $set: set });
          else fresh.push({ _id: `${user_id}:${ep._id}`, completed: false, saved: false, saved_at: null, ...set });
          written.add(ep._id);
        }
        if (fresh.length) {
          await this.stores.episode_states.insertMany(fresh).catch(async (err: unknown) => {
            if (!isDuplicateKeyError(err)) throw err;
            // A state created meanwhile (the batch was refused): each one written over.
            for (const { _id, ...f } of fresh) await this.upsert(this.stores.episode_states, _id, { $set: f });
          });
        }
      } finally {
        // One re-read and one event for all the states written, as writeStates does (also after a failure midway).
        if (written.size) {
          await this.statesChanged(user_id, [...written]);
          for (const episode_ids of idSlices([...written]))
            void episodesPositionsChanged.emit(ctx, { user_id, episode_ids, origin: ctx.params.origin ?? null });
        }
      }
      return { applied: written.size };
    },
  },
};
