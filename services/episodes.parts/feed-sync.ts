/**
 * Feed items into the episodes collection: sync_episodes (called by podcasts on import and by the
 * refresh) matches items to stored episodes by guid, then enclosure URL without its query string,
 * then title, so a refresh never duplicates an episode.
 */
import type { Context } from "moleculer";
import type { ParsedEpisode } from "../../shared/feed-parser";
import type { SyncResult } from "../../shared/contracts/episodes";
import { type EpisodeDoc, id, iso, P20_FIELDS } from "./model";

/** Stored fields a refresh may change; compared to decide whether an episode is written again. */
const SYNCED_FIELDS = [
  "guid", "enclosure_key", "title", "description", "pub_date", "duration", "enclosure_url", "enclosure_type",
  "enclosure_length", "artwork", "link", "author", "explicit", "season", "episode", "episode_type", "p20",
] as const;

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


export const feedSyncActions: Record<string, any> = {
  /**
   * Stores a podcast's feed items: matched ones are updated only when a field changed, new ones are
   * inserted and, with announce (refreshes; not a first import), announced with `episodes.created`
   * { podcast_id, episode_ids }. Items missing from the feed are kept (feeds drop old items; users
   * keep their history), except with prune (a local folder, which lists every file it has): those
   * episodes and their users' states are removed.
   */
  sync_episodes: {
    visibility: "public",
    params: { podcast_id: id, episodes: { type: "array", items: "object" }, announce: { type: "boolean", optional: true }, prune: { type: "boolean", optional: true } },
    async handler(this: any, ctx: Context<{ podcast_id: number; episodes: ParsedEpisode[]; announce?: boolean; prune?: boolean }>): Promise<SyncResult> {
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
      const changed: number[] = [];
      let gone: number[] = [];
      let updated = 0;
      const now = new Date();
      // Whatever was written, also before an error, is read into the catalogue again.
      try {
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
              changed.push(match._id);
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
        gone = ctx.params.prune ? existing.filter((e) => !matched.has(e._id)).map((e) => e._id) : [];
        if (gone.length) {
          await this.removeEpisodes(gone);
          this.logger.info("episodes removed", { podcast_id, removed: gone.length });
        }
      } finally {
        await this.catalogChanged([...changed, ...inserts.map((d) => d._id), ...gone]);
      }
      const all = [...(ctx.params.prune ? existing.filter((e) => matched.has(e._id)) : existing), ...inserts];
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
        // The catalogue's list of the podcast runs "-pub_date, -_id".
        const [first] = this.catalog.podcast(podcast_id);
        if (first) out[podcast_id] = first._id;
      }
      return out;
    },
  },
};
