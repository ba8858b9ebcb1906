/**
 * Bookmarks: a user's timestamped notes on episodes, the `bookmarks` collection, one document per
 * bookmark. A bookmark is made on an episode the user sees (of their subscriptions) and stays when they
 * unsubscribe or the episode leaves the feed: it is their text (then listed without the episode's names).
 * The position is not held to the feed's duration: feeds often understate it (inserted ads make the file
 * longer), and the player's position is the truth. Kept in server backups by the db mixin, removed with
 * the user; notes are searched by the library search (episodes.search_data, through matching_episodes).
 */
import type { ServiceSchema } from "moleculer";
import { DbMixin } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { escapeRegex } from "../shared/regex";
import { BadRequestError, ForbiddenError, NotFoundError } from "../shared/errors";
import type { EpisodeMediaItem } from "../shared/contracts/episodes";
import { episodeItems } from "../shared/contracts/episodes";
import type { Caller } from "../shared/contracts/call";
import type { Ctx, DbThis, Query } from "../shared/service-types";
import { DetailAnswer } from "../shared/contracts/answers";
import {
  BOOKMARK_MATCHES_MAX,
  BOOKMARK_NOTE_MAX,
  BOOKMARK_POSITION_MAX,
  BookmarksAnswer,
  BookmarkView,
  type CreateBookmarkParams,
  type ListBookmarksParams,
  type RemoveBookmarkParams,
  type UpdateBookmarkParams,
} from "../shared/contracts/bookmarks";

interface BookmarkDoc {
  _id: number;
  user_id: number;
  episode_id: number;
  position: number;
  note: string;
  created_at: Date;
  updated_at: Date;
}

const id = { type: "number", integer: true, positive: true, convert: true };
const position = { type: "number", min: 0, max: BOOKMARK_POSITION_MAX, convert: true };
const note = { type: "string", trim: true, max: BOOKMARK_NOTE_MAX };
const optional = <R extends object>(rule: R) => ({ ...rule, optional: true });

interface BookmarksMethods {
  own(ctx: Ctx<{ bookmark_id: number; user_id?: number }>): Promise<BookmarkDoc>;
  views(ctx: Caller, user_id: number, docs: BookmarkDoc[]): Promise<BookmarkView[]>;
}

type BookmarksThis = DbThis<BookmarkDoc> & BookmarksMethods;

const BookmarksService: ServiceSchema<Record<string, never>, BookmarksThis> = {
  name: "bookmarks",
  mixins: [DbMixin({ name: "bookmarks", indexes: [{ fields: { user_id: 1, episode_id: 1 } }] })],
  actions: {
    /** POST /api/data/bookmarks: 404 unless the user sees the episode. */
    create: {
      params: { user_id: id, episode_id: id, position, note: optional(note) },
      response: BookmarkView,
      async handler(this: BookmarksThis, ctx: Ctx<CreateBookmarkParams>): Promise<BookmarkView> {
        const { user_id, episode_id } = ctx.params;
        const [ep]: EpisodeMediaItem[] = await episodeItems(ctx, { user_id, episode_ids: [episode_id] });
        if (!ep) throw new NotFoundError("Episode not found in your podcasts");
        const now = new Date();
        const doc: BookmarkDoc = {
          _id: await this.nextId("bookmarks"),
          user_id,
          episode_id,
          position: ctx.params.position,
          note: ctx.params.note ?? "",
          created_at: now,
          updated_at: now,
        };
        await this.adapter.insert(doc);
        const [view] = await this.views(ctx, user_id, [doc]);
        return view;
      },
    },
    /**
     * GET /api/data/bookmarks: with episode_id, that episode's bookmarks by position; else all the user's,
     * newest first. Paged (limit 1-500, 100 by default); total counts the whole list.
     */
    list: {
      idempotent: true,
      params: {
        user_id: id,
        episode_id: optional(id),
        limit: { type: "number", integer: true, min: 1, max: 500, convert: true, optional: true },
        offset: { type: "number", integer: true, min: 0, convert: true, optional: true },
      },
      response: BookmarksAnswer,
      async handler(this: BookmarksThis, ctx: Ctx<ListBookmarksParams>): Promise<BookmarksAnswer> {
        const { user_id, episode_id } = ctx.params;
        const query: Query = episode_id ? { user_id, episode_id } : { user_id };
        const [docs, total]: [BookmarkDoc[], number] = await Promise.all([
          this.adapter.find({ query, sort: episode_id ? ["position", "_id"] : ["-_id"], offset: ctx.params.offset ?? 0, limit: ctx.params.limit ?? 100 }),
          this.adapter.count({ query }),
        ]);
        return { bookmarks: await this.views(ctx, user_id, docs), total };
      },
    },
    /** PUT /api/data/bookmarks/{bookmark_id}: position and/or note; 400 with neither. */
    update: {
      params: { bookmark_id: id, user_id: optional(id), position: optional(position), note: optional(note) },
      response: BookmarkView,
      async handler(this: BookmarksThis, ctx: Ctx<UpdateBookmarkParams>): Promise<BookmarkView> {
        const { position: at, note: text } = ctx.params;
        if (at === undefined && text === undefined) throw new BadRequestError("Send a position, a note or both");
        const b = await this.own(ctx);
        const set: Partial<BookmarkDoc> = { updated_at: new Date() };
        if (at !== undefined) set.position = at;
        if (text !== undefined) set.note = text;
        await this.adapter.updateMany({ _id: b._id }, { $set: set });
        const [view] = await this.views(ctx, b.user_id, [{ ...b, ...set }]);
        return view;
      },
    },
    /** DELETE /api/data/bookmarks/{bookmark_id} */
    remove: {
      params: { bookmark_id: id, user_id: optional(id) },
      response: DetailAnswer,
      async handler(this: BookmarksThis, ctx: Ctx<RemoveBookmarkParams>): Promise<DetailAnswer> {
        const b = await this.own(ctx);
        await this.adapter.removeMany({ _id: b._id });
        return { detail: "Bookmark deleted" };
      },
    },
    /** Internal: episodes.search_data's bookmark side (shared/contracts/bookmarks.ts bookmarkedEpisodes). */
    matching_episodes: {
      visibility: "public",
      params: { user_id: id, search_term: { type: "string", max: 200 } },
      async handler(this: BookmarksThis, ctx: Ctx<{ user_id: number; search_term: string }>): Promise<number[]> {
        const { user_id, search_term } = ctx.params;
        if (!search_term) return [];
        const docs: BookmarkDoc[] = await this.adapter.find({
          query: { user_id, note: { $regex: new RegExp(escapeRegex(search_term), "i") } },
          sort: ["-_id"],
          limit: BOOKMARK_MATCHES_MAX,
        });
        return Array.from(new Set(docs.map((d) => d.episode_id)));
      },
    },
  },
  events: {
    "user.removed": userRemovedEvent({ adapter: "user_id" }),
  },
  methods: {
    /**
     * The bookmark of the route's path, when it is the user's: the user_id sent (checked against the caller by
     * the ownership middleware), else the caller. 404 unknown, 403 another user's (an admin names its owner).
     */
    async own(this: BookmarksThis, ctx: Ctx<{ bookmark_id: number; user_id?: number }>): Promise<BookmarkDoc> {
      const b: BookmarkDoc | null = await this.adapter.findOne({ _id: ctx.params.bookmark_id });
      if (!b) throw new NotFoundError("Bookmark not found");
      if (b.user_id !== (ctx.params.user_id ?? ctx.meta.user!.id)) throw new ForbiddenError("This bookmark belongs to another user");
      return b;
    },
    /** The bookmarks as answered, with their episodes' names read in one call (also of podcasts the user left since). */
    async views(this: BookmarksThis, ctx: Caller, user_id: number, docs: BookmarkDoc[]): Promise<BookmarkView[]> {
      const ids = Array.from(new Set(docs.map((d) => d.episode_id)));
      const items: EpisodeMediaItem[] = ids.length ? await episodeItems(ctx, { user_id, episode_ids: ids, include_unsubscribed: true }) : [];
      const byId = new Map(items.map((e) => [e.episodeid, e]));
      return docs.map((d) => {
        const ep = byId.get(d.episode_id);
        return {
          bookmark_id: d._id,
          user_id: d.user_id,
          episode_id: d.episode_id,
          position: d.position,
          note: d.note,
          created_at: new Date(d.created_at).toISOString(),
          updated_at: new Date(d.updated_at).toISOString(),
          podcast_id: ep?.podcastid ?? null,
          episode_title: ep?.episodetitle ?? null,
          podcast_name: ep?.podcastname ?? null,
        };
      });
    },
  },
};

export default BookmarksService;
