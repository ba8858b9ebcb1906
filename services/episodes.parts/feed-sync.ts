/**
 * Feed items into the episodes collection: sync_episodes (called by podcasts on import and by the
 * refresh) matches items to stored episodes by guid, then enclosure URL without its query string,
 * then title, so a refresh never duplicates an episode.
 *
 * Two syncs of one podcast may overlap (two feeds replicas, or two calls interleaving in one process):
 * the unique index on (podcast_id, guid) (episodes.service.ts) is the guard, not the read before the
 * insert. An item whose insert collides was stored by the other sync meanwhile: it is read again and
 * treated as matched, so each episode is stored, and announced as created, once.
 */
import type { ServiceActionsSchema } from "moleculer";
import type { ParsedEpisode } from "../../shared/feed-parser";
import type { SyncResult } from "../../shared/contracts/episodes";
import { episodesCreated } from "../../shared/contracts/episodes";
import { isDuplicateKeyError } from "../../shared/db.mixin";
import type { Ctx, Store } from "../../shared/service-types";
import { type EpisodeDoc, type EpisodeStateDoc, id, iso, P20_FIELDS } from "./model";
import type { EpisodesThis } from "./this";

/** Stored fields a refresh may change; compared to decide whether an episode is written again. */
const SYNCED_FIELDS = [
  "guid",
  "enclosure_key",
  "title",
  "description",
  "pub_date",
  "duration",
  "enclosure_url",
  "enclosure_type",
  "enclosure_length",
  "artwork",
  "link",
  "author",
  "explicit",
  "season",
  "episode",
  "episode_type",
  "p20",
] as const;

/** Former enclosure addresses kept per episode. */
const FORMER_KEYS = 5;

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
  const copy = <K extends (typeof P20_FIELDS)[number]>(f: K) => {
    p20[f] = item[f];
  };
  for (const f of P20_FIELDS) copy(f);
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

type Synced = Omit<EpisodeDoc, "_id" | "podcast_id" | "created_at">;

/** The synced fields of `next` that differ from the stored episode (a duration of 0 never replaces one). */
function changesOf(stored: EpisodeDoc, next: Synced): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const f of SYNCED_FIELDS) if (!sameValue(stored[f], next[f])) changes[f] = next[f];
  // A duration corrected by update_episode_duration stays when the feed still has none.
  if (changes.duration === 0) delete changes.duration;
  return changes;
}

/** The stored episode of a podcast with this guid (one a concurrent sync wrote); throws when there is none. */
async function storedByGuid(svc: EpisodesThis, podcast_id: number, guid: string): Promise<EpisodeDoc> {
  const stored = await svc.adapter.findOne({ podcast_id, guid });
  if (!stored) throw new Error(`Episode guid of podcast ${podcast_id} collides with none stored`);
  return stored;
}

/** What the repair reads of the episodes store. */
export type GuidDoc = Pick<EpisodeDoc, "_id" | "podcast_id" | "guid">;

/**
 * Repair of the (podcast_id, guid) index (db.mixin IndexSpec.repair), run only when creating it failed on
 * episodes stored twice (overlapping refreshes of an older version). Each (podcast_id, guid) group is
 * folded into its lowest _id, the one announced first: a user's state of a removed duplicate moves to it
 * when the user has none of it (of several, the one listened to last), the other states go with their
 * duplicates. Replicas starting together may repair at once: every step can run twice.
 */
export async function foldDuplicateEpisodes(svc: EpisodesThis, store: Store<GuidDoc>): Promise<void> {
  const first = new Map<string, number>();
  const groups = new Map<string, { podcast_id: number; guid: string; ids: number[] }>();
  await svc.forEachDoc(store, ["podcast_id", "guid"], (d) => {
    // Only string guids are in the index (its partial filter on MongoDB; the embedded store compares JSON values).
    if (typeof d.guid !== "string") return;
    const key = `${d.podcast_id}\n${d.guid}`;
    const seen = first.get(key);
    if (seen === undefined) first.set(key, d._id);
    else if (groups.has(key)) groups.get(key)!.ids.push(d._id);
    else groups.set(key, { podcast_id: d.podcast_id, guid: d.guid, ids: [seen, d._id] });
  });
  first.clear();
  const states = svc.stores.episode_states;
  const time = (d: Date | null | undefined) => (d ? new Date(d).getTime() : -Infinity);
  for (const { podcast_id, guid, ids } of groups.values()) {
    const [keep, ...dups] = ids.sort((a, b) => a - b);
    const held: EpisodeStateDoc[] = await states.find({ query: { podcast_id, episode_id: { $in: ids } } });
    const keepers = new Set(held.filter((s) => s.episode_id === keep).map((s) => s.user_id));
    const moving = new Map<number, EpisodeStateDoc>();
    for (const s of held) {
      if (s.episode_id === keep || keepers.has(s.user_id)) continue;
      const other = moving.get(s.user_id);
      if (!other || time(s.last_listened_at) > time(other.last_listened_at)) moving.set(s.user_id, s);
    }
    for (const s of moving.values()) {
      try {
        await states.insert({ ...s, _id: `${s.user_id}:${keep}`, episode_id: keep });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err; // another replica moved it first
      }
    }
    await svc.removeEpisodes(dups);
    for (const user_id of moving.keys()) await svc.statesChanged(user_id, [keep]);
    await svc.catalogChanged(dups);
    svc.logger.warn("duplicate episodes folded", { podcast_id, guid, kept: keep, removed: dups, states_moved: moving.size });
  }
}

export const feedSyncActions: ServiceActionsSchema = {
  /**
   * Stores a podcast's feed items: matched ones are updated only when a field changed, new ones are
   * inserted and, with announce (refreshes; not a first import), announced with `episodes.created`
   * { podcast_id, episode_ids }. Items missing from the feed are kept (feeds drop old items; users
   * keep their history), except with prune (a local folder, which lists every file it has): those
   * episodes and their users' states are removed.
   */
  sync_episodes: {
    visibility: "public",
    params: {
      podcast_id: id,
      episodes: { type: "array", items: "object" },
      announce: { type: "boolean", optional: true },
      prune: { type: "boolean", optional: true },
    },
    async handler(this: EpisodesThis, ctx: Ctx<{ podcast_id: number; episodes: ParsedEpisode[]; announce?: boolean; prune?: boolean }>): Promise<SyncResult> {
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
      const seen = new Set<string>();
      const matched = new Set<number>();
      const inserts: EpisodeDoc[] = [];
      let written: EpisodeDoc[];
      /** Episodes a concurrent sync stored meanwhile, as stored (with this feed's changes). */
      const raced: EpisodeDoc[] = [];
      const changed: number[] = [];
      let gone: number[] = [];
      let updated = 0;
      const now = new Date();
      /** Writes the item's changed fields to a stored episode; a new guid that a concurrent sync stored meanwhile goes to that episode instead. */
      const update = async (stored: EpisodeDoc, next: Synced): Promise<EpisodeDoc> => {
        const changes = changesOf(stored, next);
        if (!Object.keys(changes).length) return stored;
        // The enclosure moved (a CDN, a new query string): what devices send under its old address still finds it (apply_sync_states).
        if (changes.enclosure_key !== undefined && stored.enclosure_key)
          changes.former_keys = [
            ...(stored.former_keys ?? []).filter((k) => k !== changes.enclosure_key && k !== stored.enclosure_key),
            stored.enclosure_key,
          ].slice(-FORMER_KEYS);
        try {
          await this.adapter.updateMany({ _id: stored._id }, { $set: changes });
        } catch (err) {
          if (!isDuplicateKeyError(err) || changes.guid === undefined) throw err;
          matched.delete(stored._id);
          const other = await storedByGuid(this, podcast_id, next.guid);
          if (matched.has(other._id)) return other;
          matched.add(other._id);
          const merged = await update(other, next);
          raced.push(merged);
          return merged;
        }
        changed.push(stored._id);
        updated++;
        return { ...stored, ...changes };
      };
      // Whatever was written, also before an error, is read into the catalogue again.
      try {
        for (const item of ctx.params.episodes) {
          const next = fromParsed(item);
          // Items repeated inside one feed document are one episode: the first one counts.
          if (seen.has(next.guid)) continue;
          seen.add(next.guid);
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
            await update(match, next);
            continue;
          }
          const doc: EpisodeDoc = { _id: await this.nextId("episodes"), podcast_id, ...next, created_at: now };
          inserts.push(doc);
          byGuid.set(doc.guid, doc);
          matched.add(doc._id);
        }
        // Those whose (podcast_id, guid) another sync stored meanwhile are refused: matched to the stored one below.
        const { written: mine, refused: taken } = await this.insertEach(this.adapter, inserts, (doc) => Promise.resolve(doc));
        written = mine;
        for (const doc of taken) {
          matched.delete(doc._id);
          const stored = await storedByGuid(this, podcast_id, doc.guid);
          if (matched.has(stored._id)) continue;
          matched.add(stored._id);
          raced.push(await update(stored, doc));
        }
        gone = ctx.params.prune ? existing.filter((e) => !matched.has(e._id)).map((e) => e._id) : [];
        if (gone.length) {
          await this.removeEpisodes(gone);
          this.logger.info("episodes removed", { podcast_id, removed: gone.length });
        }
      } finally {
        await this.catalogChanged([...changed, ...inserts.map((d) => d._id), ...gone]);
      }
      const all = [...(ctx.params.prune ? existing.filter((e) => matched.has(e._id)) : existing), ...written, ...raced];
      let newest: Date | null = null;
      for (const e of all) if (e.pub_date && (!newest || e.pub_date > newest)) newest = e.pub_date;
      const created_ids = written.map((d) => d._id);
      if (created_ids.length && ctx.params.announce) void episodesCreated.emit(ctx, { podcast_id, episode_ids: created_ids });
      if (created_ids.length || updated || raced.length)
        this.logger.info("episodes synced", { podcast_id, created: created_ids.length, updated, stored_meanwhile: raced.length });
      return { created_ids, updated, total: all.length, last_episode_date: iso(newest) };
    },
  },
  /** The newest visible episode of each podcast for one user, batched: first_episode_id of add_podcast. */
  newest_episode_ids: {
    visibility: "public",
    params: { podcast_ids: { type: "array", items: "number" } },
    handler(this: EpisodesThis, ctx: Ctx<{ podcast_ids: number[] }>): Promise<Record<number, number>> {
      const out: Record<number, number> = {};
      for (const podcast_id of ctx.params.podcast_ids) {
        // The catalogue's list of the podcast runs "-pub_date, -_id".
        const [first] = this.catalog.podcast(podcast_id);
        if (first) out[podcast_id] = first._id;
      }
      return Promise.resolve(out);
    },
  },
};
