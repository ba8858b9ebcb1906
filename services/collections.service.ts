/**
 * Collections (PinePods' web client "Saved" page): a user's own named groups of podcasts and episodes,
 * the `collections` collection. A collection holds podcasts (added by hand, or every podcast of its
 * auto_add_categories), episodes added one by one, and episodes taken out although their podcast
 * belongs; its episodes are worked out when read by episodes.collection_episodes, so a new episode of a
 * member podcast is in it without a job. Every user has one default collection, "Saved", backed by
 * their saved episodes (made on first list, unique per user, never renamed or deleted).
 *
 * Concurrency: membership changes are single-document $addToSet / $pull updates, so two adds at once
 * both land; a name is unique per user through a unique name_key, so a race answers 409, not a twin.
 */
import type { ServiceSchema } from "moleculer";
import { DbMixin, isDuplicateKeyError } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from "../shared/errors";
import type { CollectionEpisodesParams, CollectionMembers, CollectionPage, EpisodeMediaItem } from "../shared/contracts/episodes";
import { collectionEpisodes, episodeItems, removeSavedEpisode, saveEpisode, savedEpisodeList } from "../shared/contracts/episodes";
import type { PodcastSearchResult } from "../shared/contracts/podcasts";
import { playbackSettings, searchPodcasts, subscriptionsRemoved } from "../shared/contracts/podcasts";
import type { Caller } from "../shared/contracts/call";
import type { Ctx, DbThis } from "../shared/service-types";
import { DetailAnswer } from "../shared/contracts/answers";
import {
  CollectionEpisodesAnswer,
  CollectionsAnswer,
  CollectionView,
  CreateCollectionAnswer,
  EpisodeCollections,
  UserCategories,
} from "../shared/contracts/collections";

interface CollectionDoc {
  _id: number;
  user_id: number;
  name: string;
  /** "<user_id>:<name lower-cased>": unique, so a name is taken once per user. */
  name_key: string;
  description: string | null;
  icon: string;
  is_default: boolean;
  /** Podcasts in these categories belong (case-insensitive); null = none. */
  auto_add_categories: string[] | null;
  /** Only their episodes published after this time (ms) belong: set when categories were given without backfill. */
  categories_since: number | null;
  podcast_ids: number[];
  episode_ids: number[];
  excluded_ids: number[];
  created_at: Date;
  updated_at: Date;
}

const id = { type: "number", integer: true, positive: true, convert: true };
const name = { type: "string", trim: true, min: 1, max: 200 };
const description = { type: "string", max: 2000, nullable: true, optional: true };
const icon = { type: "string", trim: true, min: 1, max: 100, nullable: true, optional: true };
const categories = { type: "array", max: 200, items: { type: "string", trim: true, min: 1, max: 200 }, nullable: true, optional: true };
const flag = { type: "boolean", convert: true, optional: true, nullable: true };
/** An episode added to or taken from a collection (is_youtube: the client's flag for a video channel's episode; ids are one space here). */
const episodeChange = { collection_id: id, user_id: id, episode_id: id, is_youtube: flag };
const podcastChange = { collection_id: id, user_id: id, podcast_id: id };
const DEFAULT_ICON = "ph-bookmark-simple";
const SAVED = { name: "Saved", description: "Episodes you saved", icon: "ph-bookmarks" };

/** The default collection's name is taken for every user, whether or not it was made yet. */
const nameKey = (user_id: number, n: string) => `${user_id}:${n.toLowerCase() === SAVED.name.toLowerCase() ? "#default" : n.toLowerCase()}`;

/** Since when a collection's categories count: now unless backfilled (then every episode). */
const sinceFor = (backfill: boolean | null | undefined) => (backfill ? null : Date.now());

/** A collection's fields as insert() takes them (the rest it sets). */
type NewCollection = Omit<CollectionDoc, "_id" | "name_key" | "podcast_ids" | "episode_ids" | "excluded_ids" | "created_at" | "updated_at">;
/** create and update's optional fields (null: as absent). */
type CollectionFields = { description?: string | null; icon?: string | null; auto_add_categories?: string[] | null; backfill?: boolean | null };
type EpisodeChange = { collection_id: number; user_id: number; episode_id: number; is_youtube?: boolean | null };
type PodcastChange = { collection_id: number; user_id: number; podcast_id: number };
type EpisodesParams = { collection_id: number; limit?: number; offset?: number; sort_by?: string; sort_order?: "asc" | "desc"; filter?: string };

interface CollectionsMethods {
  insert(fields: NewCollection): Promise<number>;
  ensureDefault(user_id: number): Promise<void>;
  own(user_id: number, collection_id: number): Promise<CollectionDoc>;
  editable(user_id: number, collection_id: number): Promise<CollectionDoc>;
  visibleEpisode(ctx: Caller, user_id: number, episode_id: number): Promise<EpisodeMediaItem>;
  categoryIndex(ctx: Caller, user_id: number, docs: CollectionDoc[]): Promise<Map<string, number[]>>;
  members(d: CollectionDoc, byCategory: Map<string, number[]>): CollectionMembers;
  episodes(ctx: Caller, params: CollectionEpisodesParams): Promise<CollectionPage[]>;
  view(d: CollectionDoc, episode_count: number, podcast_ids: number[]): CollectionView;
}

type CollectionsThis = DbThis<CollectionDoc> & CollectionsMethods;

const CollectionsService: ServiceSchema<Record<string, never>, CollectionsThis> = {
  name: "collections",
  mixins: [DbMixin({ name: "collections", indexes: [{ fields: { user_id: 1 } }, { fields: { name_key: 1 }, unique: true }] })],
  actions: {
    /** POST /api/data/collections/create: 409 when the user has a collection of that name. */
    create: {
      params: { user_id: id, name, description, icon, auto_add_categories: categories, backfill: flag },
      response: CreateCollectionAnswer,
      async handler(this: CollectionsThis, ctx: Ctx<{ user_id: number; name: string } & CollectionFields>): Promise<CreateCollectionAnswer> {
        const p = ctx.params;
        const cats = p.auto_add_categories?.length ? p.auto_add_categories : null;
        await this.ensureDefault(p.user_id); // its name is then taken (409), not the default's
        const collection_id = await this.insert({
          user_id: p.user_id,
          name: p.name,
          description: p.description ?? null,
          icon: p.icon ?? DEFAULT_ICON,
          is_default: false,
          auto_add_categories: cats,
          categories_since: cats ? sinceFor(p.backfill) : null,
        });
        return { detail: "Collection created successfully", collection_id };
      },
    },
    /** GET /api/data/collections/user/{user_id}: the default collection first, then by creation; counts and member podcasts. */
    list: {
      idempotent: true,
      params: { user_id: id },
      response: CollectionsAnswer,
      async handler(this: CollectionsThis, ctx: Ctx<{ user_id: number }>): Promise<CollectionsAnswer> {
        const { user_id } = ctx.params;
        await this.ensureDefault(user_id);
        const docs: CollectionDoc[] = await this.adapter.find({ query: { user_id }, sort: ["-is_default", "_id"] });
        const own = docs.filter((d) => !d.is_default);
        const podcasts = await this.categoryIndex(ctx, user_id, own);
        const members = own.map((d) => this.members(d, podcasts));
        const [pages, saved]: [CollectionPage[], { total: number }] = await Promise.all([
          this.episodes(ctx, { user_id, collections: members, limit: 0 }),
          savedEpisodeList(ctx, { user_id, limit: 1 }),
        ]);
        const counts = new Map(own.map((d, n) => [d._id, pages[n].total]));
        const podcastIds = new Map(own.map((d, n) => [d._id, members[n].podcasts.map((m) => m.podcast_id)]));
        return { collections: docs.map((d) => this.view(d, d.is_default ? saved.total : counts.get(d._id)!, podcastIds.get(d._id) ?? [])) };
      },
    },
    /** GET /api/data/collections/categories/{user_id}: the distinct categories of the user's podcasts, sorted. */
    categories: {
      idempotent: true,
      params: { user_id: id },
      response: UserCategories,
      async handler(this: CollectionsThis, ctx: Ctx<{ user_id: number }>): Promise<UserCategories> {
        const found: PodcastSearchResult = await searchPodcasts(ctx, { user_id: ctx.params.user_id, search_term: "" });
        const seen = new Map<string, string>();
        for (const c of found.podcasts.flatMap((h) => Object.values(h.categories))) if (!seen.has(c.toLowerCase())) seen.set(c.toLowerCase(), c);
        return { categories: [...seen.values()].sort((a, b) => a.localeCompare(b)) };
      },
    },
    /**
     * PATCH /api/data/collections/{collection_id}: the fields sent (null, as for PinePods, keeps a field; an
     * empty category list clears them); new categories count from now unless backfill. 400 for the default one.
     */
    update: {
      params: { collection_id: id, name: { ...name, optional: true, nullable: true }, description, icon, auto_add_categories: categories, backfill: flag },
      response: DetailAnswer,
      async handler(this: CollectionsThis, ctx: Ctx<{ collection_id: number; name?: string | null } & CollectionFields>): Promise<DetailAnswer> {
        const p = ctx.params;
        const c: CollectionDoc = await this.editable(ctx.meta.user!.id, p.collection_id); // the route needs a login
        const set: Partial<CollectionDoc> = { updated_at: new Date() };
        if (p.name != null) Object.assign(set, { name: p.name, name_key: nameKey(c.user_id, p.name) });
        if (p.description != null) set.description = p.description;
        if (p.icon) set.icon = p.icon;
        if (p.auto_add_categories != null) {
          const cats = p.auto_add_categories?.length ? p.auto_add_categories : null;
          Object.assign(set, { auto_add_categories: cats, categories_since: cats ? sinceFor(p.backfill) : null });
        } else if (p.backfill) set.categories_since = null;
        try {
          await this.adapter.updateMany({ _id: c._id }, { $set: set });
        } catch (err) {
          if (isDuplicateKeyError(err)) throw new ConflictError("A collection with that name already exists");
          throw err;
        }
        return { detail: "Collection updated successfully" };
      },
    },
    /** DELETE /api/data/collections/{collection_id}: 400 for the default one. */
    remove: {
      params: { collection_id: id },
      response: DetailAnswer,
      async handler(this: CollectionsThis, ctx: Ctx<{ collection_id: number }>): Promise<DetailAnswer> {
        const c: CollectionDoc = await this.editable(ctx.meta.user!.id, ctx.params.collection_id);
        await this.adapter.removeMany({ _id: c._id });
        return { detail: "Collection deleted successfully" };
      },
    },
    /** POST /api/data/collections/{collection_id}/add_episode: into the default collection = saved. */
    add_episode: {
      params: episodeChange,
      response: DetailAnswer,
      async handler(this: CollectionsThis, ctx: Ctx<EpisodeChange>): Promise<DetailAnswer> {
        const { user_id, collection_id, episode_id } = ctx.params;
        const c: CollectionDoc = await this.own(user_id, collection_id);
        if (c.is_default) await saveEpisode(ctx, { user_id, episode_id });
        else {
          await this.visibleEpisode(ctx, user_id, episode_id);
          await this.adapter.updateMany(
            { _id: c._id },
            { $addToSet: { episode_ids: episode_id }, $pull: { excluded_ids: episode_id }, $set: { updated_at: new Date() } },
          );
        }
        return { detail: "Episode added to collection" };
      },
    },
    /** POST /api/data/collections/{collection_id}/remove_episode: also out when its podcast or category belongs. */
    remove_episode: {
      params: episodeChange,
      response: DetailAnswer,
      async handler(this: CollectionsThis, ctx: Ctx<EpisodeChange>): Promise<DetailAnswer> {
        const { user_id, collection_id, episode_id } = ctx.params;
        const c: CollectionDoc = await this.own(user_id, collection_id);
        if (c.is_default) await removeSavedEpisode(ctx, { user_id, episode_id });
        else
          await this.adapter.updateMany(
            { _id: c._id },
            { $pull: { episode_ids: episode_id }, $addToSet: { excluded_ids: episode_id }, $set: { updated_at: new Date() } },
          );
        return { detail: "Episode removed from collection" };
      },
    },
    /** POST /api/data/collections/{collection_id}/add_podcast: every episode of a podcast the user is subscribed to. */
    add_podcast: {
      params: podcastChange,
      response: DetailAnswer,
      async handler(this: CollectionsThis, ctx: Ctx<PodcastChange>): Promise<DetailAnswer> {
        const { user_id, collection_id, podcast_id } = ctx.params;
        const c: CollectionDoc = await this.editable(user_id, collection_id);
        await playbackSettings(ctx, { user_id, podcast_id }); // 404 unless subscribed
        await this.adapter.updateMany({ _id: c._id }, { $addToSet: { podcast_ids: podcast_id }, $set: { updated_at: new Date() } });
        return { detail: "Podcast added to collection" };
      },
    },
    /** POST /api/data/collections/{collection_id}/remove_podcast */
    remove_podcast: {
      params: podcastChange,
      response: DetailAnswer,
      async handler(this: CollectionsThis, ctx: Ctx<PodcastChange>): Promise<DetailAnswer> {
        const { user_id, collection_id, podcast_id } = ctx.params;
        const c: CollectionDoc = await this.editable(user_id, collection_id);
        await this.adapter.updateMany({ _id: c._id }, { $pull: { podcast_ids: podcast_id }, $set: { updated_at: new Date() } });
        return { detail: "Podcast removed from collection" };
      },
    },
    /** GET /api/data/collections/{collection_id}/episodes: one page, as saved_episode_list answers (the default collection is that list). */
    episodes: {
      idempotent: true,
      params: {
        collection_id: id,
        limit: { type: "number", integer: true, min: 1, max: 1000, convert: true, optional: true },
        offset: { type: "number", integer: true, min: 0, convert: true, optional: true },
        sort_by: { type: "enum", values: ["date", "pub_date", "title", "duration", "podcast", "listen_progress"], optional: true },
        sort_order: { type: "enum", values: ["asc", "desc"], optional: true },
        filter: { type: "enum", values: ["all", "unplayed", "played", "in_progress", "completed", "not_completed", "saved", ""], optional: true },
      },
      response: CollectionEpisodesAnswer,
      async handler(this: CollectionsThis, ctx: Ctx<EpisodesParams>): Promise<CollectionEpisodesAnswer> {
        const { collection_id, filter, ...page } = ctx.params;
        const user_id = ctx.meta.user!.id; // the route needs a login
        const c: CollectionDoc = await this.own(user_id, collection_id);
        const query = { ...page, limit: page.limit ?? 50, filter: filter || "all" };
        if (c.is_default) return savedEpisodeList(ctx, { user_id, ...query });
        const [res]: CollectionPage[] = await this.episodes(ctx, {
          user_id,
          collections: [this.members(c, await this.categoryIndex(ctx, user_id, [c]))],
          ...query,
        });
        return { saved_episodes: res.episodes, total: res.total };
      },
    },
    /** GET /api/data/episode_collections/{user_id}/{episode_id}: the user's collections that hold the episode. */
    episode_collections: {
      idempotent: true,
      params: { user_id: id, episode_id: id, is_youtube: flag },
      response: EpisodeCollections,
      async handler(this: CollectionsThis, ctx: Ctx<{ user_id: number; episode_id: number; is_youtube?: boolean | null }>): Promise<EpisodeCollections> {
        const { user_id, episode_id } = ctx.params;
        const ep: EpisodeMediaItem = await this.visibleEpisode(ctx, user_id, episode_id);
        const docs: CollectionDoc[] = await this.adapter.find({ query: { user_id }, sort: ["-is_default", "_id"] });
        const podcasts = await this.categoryIndex(ctx, user_id, docs);
        const pub = ep.episodepubdate ? Date.parse(ep.episodepubdate) : 0;
        const holds = (d: CollectionDoc) => {
          if (d.is_default) return ep.saved;
          const m: CollectionMembers = this.members(d, podcasts);
          if (m.excluded_ids.includes(episode_id)) return false;
          return m.episode_ids.includes(episode_id) || m.podcasts.some((x) => x.podcast_id === ep.podcastid && (x.since === null || pub > x.since));
        };
        return { collection_ids: docs.filter(holds).map((d) => d._id) };
      },
    },
  },
  events: {
    "user.removed": userRemovedEvent({ adapter: "user_id" }),
    /** A user left a podcast: it leaves their collections, with the episodes of it they added or took out. */
    async [subscriptionsRemoved.eventName](this: CollectionsThis, ctx: Ctx<{ user_id: number; podcast_id: number }>) {
      const { user_id, podcast_id } = ctx.params;
      const docs: CollectionDoc[] = await this.adapter.find({ query: { user_id } });
      const listed = Array.from(new Set(docs.flatMap((d) => [...d.episode_ids, ...d.excluded_ids])));
      const items: EpisodeMediaItem[] = listed.length ? await episodeItems(ctx, { user_id, episode_ids: listed, include_unsubscribed: true }) : [];
      const gone = items.filter((e) => e.podcastid === podcast_id).map((e) => e.episodeid);
      await this.adapter.updateMany({ user_id }, { $pull: { podcast_ids: podcast_id, episode_ids: { $in: gone }, excluded_ids: { $in: gone } } });
    },
  },
  methods: {
    async insert(this: CollectionsThis, fields: NewCollection): Promise<number> {
      const now = new Date();
      const doc: CollectionDoc = {
        ...fields,
        _id: await this.nextId("collections"),
        name_key: nameKey(fields.user_id, fields.name),
        podcast_ids: [],
        episode_ids: [],
        excluded_ids: [],
        created_at: now,
        updated_at: now,
      };
      await this.insertUnique(this.adapter, doc, "A collection with that name already exists");
      return doc._id;
    },
    /** The user's default collection, made once however many requests race for it. */
    async ensureDefault(this: CollectionsThis, user_id: number): Promise<void> {
      if (await this.adapter.findOne({ user_id, is_default: true })) return;
      try {
        await this.insert({ user_id, ...SAVED, is_default: true, auto_add_categories: null, categories_since: null });
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err; // made meanwhile
      }
    },
    /** The collection, when it is user_id's: 404 unknown, 403 another user's (also for an admin acting as user_id). */
    async own(this: CollectionsThis, user_id: number, collection_id: number): Promise<CollectionDoc> {
      const c: CollectionDoc | null = await this.adapter.findOne({ _id: collection_id });
      if (!c) throw new NotFoundError("Collection not found");
      if (c.user_id !== user_id) throw new ForbiddenError("This collection belongs to another user");
      return c;
    },
    /** own(), and not the default collection (its content is the saved episodes). */
    async editable(this: CollectionsThis, user_id: number, collection_id: number): Promise<CollectionDoc> {
      const c: CollectionDoc = await this.own(user_id, collection_id);
      if (c.is_default) throw new BadRequestError("The default collection cannot be changed or deleted");
      return c;
    },
    /** An episode the user sees (404 otherwise), with its podcast and date. */
    async visibleEpisode(this: CollectionsThis, ctx: Caller, user_id: number, episode_id: number): Promise<EpisodeMediaItem> {
      const [ep]: EpisodeMediaItem[] = await episodeItems(ctx, { user_id, episode_ids: [episode_id] });
      if (!ep) throw new NotFoundError("Episode not found in your podcasts");
      return ep;
    },
    /** The user's podcasts by category (lower-cased), read once for these collections; empty when none has categories. */
    async categoryIndex(this: CollectionsThis, ctx: Caller, user_id: number, docs: CollectionDoc[]): Promise<Map<string, number[]>> {
      const index = new Map<string, number[]>();
      if (!docs.some((d) => d.auto_add_categories?.length)) return index;
      const found: PodcastSearchResult = await searchPodcasts(ctx, { user_id, search_term: "" });
      for (const h of found.podcasts)
        for (const c of Object.values(h.categories)) index.set(c.toLowerCase(), [...(index.get(c.toLowerCase()) ?? []), h.podcast_id]);
      return index;
    },
    /** What the collection holds for episodes.collection_episodes: its own podcasts (all episodes) win over its categories' (since). */
    members(this: CollectionsThis, d: CollectionDoc, byCategory: Map<string, number[]>): CollectionMembers {
      const podcasts = new Map<number, number | null>();
      for (const c of d.auto_add_categories ?? []) for (const pid of byCategory.get(c.toLowerCase()) ?? []) podcasts.set(pid, d.categories_since);
      for (const pid of d.podcast_ids) podcasts.set(pid, null);
      return { episode_ids: d.episode_ids, excluded_ids: d.excluded_ids, podcasts: [...podcasts].map(([podcast_id, since]) => ({ podcast_id, since })) };
    },
    episodes(this: CollectionsThis, ctx: Caller, params: CollectionEpisodesParams): Promise<CollectionPage[]> {
      if (!params.collections.length) return Promise.resolve([]);
      return collectionEpisodes(ctx, params);
    },
    view(this: CollectionsThis, d: CollectionDoc, episode_count: number, podcast_ids: number[]): CollectionView {
      return {
        collection_id: d._id,
        user_id: d.user_id,
        name: d.name,
        description: d.description,
        is_default: d.is_default,
        icon: d.icon,
        created_at: new Date(d.created_at).toISOString(),
        last_updated: new Date(d.updated_at).toISOString(),
        episode_count,
        auto_add_categories: d.auto_add_categories,
        podcast_ids,
      };
    },
  },
};

export default CollectionsService;
