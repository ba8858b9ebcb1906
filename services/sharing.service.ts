/**
 * Shared episode links: share_episode gives an unguessable url_key (optionally expiring) for an
 * episode the caller can see; anyone holding the key reads the episode with episode_by_url, no API key
 * needed; the sharer lists theirs (get_user_shared_links), extends one (extend_shared_link) or, as an
 * admin may, removes it (delete_shared_link). One link per user and episode:
 * sharing again returns the same key (with a new expiry when one is asked for). A local podcast's
 * episode is played through shared_stream of its key, as its `local:` address is no URL.
 */
import crypto from "crypto";
import type { ServiceSchema } from "moleculer";
import { publicOrigin } from "../shared/client-address";
import { DbMixin, isDuplicateKeyError } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { BadRequestError, ForbiddenError, NotFoundError } from "../shared/errors";
import type { MediaAnswerMeta } from "../shared/range";
import type { EpisodeMediaItem } from "../shared/contracts/episodes";
import { episodeItems } from "../shared/contracts/episodes";
import type { Caller } from "../shared/contracts/call";
import type { Ctx, DbThis } from "../shared/service-types";
import { isLocalFeed, localFileAnswer } from "../shared/contracts/local";
import { ExtendedLinkAnswer, SharedLinksAnswer, type SharedLinkView } from "../shared/contracts/sharing";
import { ShareAnswer, SharedEpisodeAnswer } from "../shared/contracts/sharing";
import { MediaAnswer } from "../shared/contracts/downloads";
import { DetailAnswer } from "../shared/contracts/answers";
import type { Static } from "../shared/contracts/answers";

interface LinkDoc {
  _id: number;
  url_key: string;
  episode_id: number;
  user_id: number;
  created_at: Date;
  /** null: never expires. Expired links are answered 404 and removed by the store's TTL index. */
  expires_at: Date | null;
  /** "user_id:episode_id", under a unique index: two shares at once (two replicas) make one link. Absent on links of older versions. */
  owner_key?: string;
}

const DAY_MS = 86_400_000;
const id = { type: "number", integer: true, positive: true, convert: true };
const urlKey = { type: "string", pattern: /^[A-Za-z0-9_-]{16,64}$/ };

function live(link: LinkDoc): boolean {
  return !link.expires_at || new Date(link.expires_at).getTime() > Date.now();
}

interface SharingMethods {
  sharedEpisode(ctx: Caller, url_key: string): Promise<{ link: LinkDoc; e: EpisodeMediaItem }>;
}

type SharingThis = DbThis<LinkDoc> & SharingMethods;

function shape(link: LinkDoc): Omit<ShareAnswer, "detail"> {
  return {
    url_key: link.url_key,
    episode_id: link.episode_id,
    share_path: `/api/data/episode_by_url/${link.url_key}`,
    expires_at: link.expires_at ? new Date(link.expires_at).toISOString() : null,
  };
}

const SharingService: ServiceSchema<Record<string, never>, SharingThis> = {
  name: "sharing",
  mixins: [
    DbMixin({
      name: "shared_links",
      indexes: [
        { fields: { url_key: 1 }, unique: true },
        { fields: { user_id: 1 } },
        { fields: { expires_at: 1 }, expireAfterSeconds: 0 },
        { fields: { owner_key: 1 }, unique: true, partial: { owner_key: { $type: "string" } } },
      ],
    }),
  ],
  actions: {
    /** POST /api/data/share_episode/{episode_id}: body expires_in_days? (1-3650; none = no expiry). */
    share_episode: {
      params: { episode_id: id, expires_in_days: { type: "number", integer: true, min: 1, max: 3650, convert: true, optional: true } },
      response: ShareAnswer,
      async handler(this: SharingThis, ctx: Ctx<{ episode_id: number; expires_in_days?: number }>): Promise<ShareAnswer> {
        const user = ctx.meta.user!;
        const { episode_id, expires_in_days } = ctx.params;
        const [item]: EpisodeMediaItem[] = await episodeItems(ctx, { user_id: user.id, episode_ids: [episode_id], include_unsubscribed: user.isAdmin });
        if (!item) throw new NotFoundError("Episode not found in your podcasts");
        const expires_at = expires_in_days ? new Date(Date.now() + expires_in_days * DAY_MS) : null;
        const existing: LinkDoc | null = await this.adapter.findOne({ user_id: user.id, episode_id });
        if (existing && live(existing)) {
          if (expires_in_days) await this.adapter.updateMany({ _id: existing._id }, { $set: { expires_at } });
          return { ...shape({ ...existing, expires_at: expires_in_days ? expires_at : existing.expires_at }), detail: "Episode shared" };
        }
        if (existing) await this.adapter.removeMany({ _id: existing._id });
        const owner_key = `${user.id}:${episode_id}`;
        const link: LinkDoc = {
          _id: await this.nextId("shared_links"),
          url_key: crypto.randomBytes(24).toString("base64url"),
          episode_id,
          user_id: user.id,
          created_at: new Date(),
          expires_at,
          owner_key,
        };
        for (let attempt = 0; ; attempt++) {
          try {
            await this.adapter.insert(link);
            return { ...shape(link), detail: "Episode shared" };
          } catch (err) {
            if (!isDuplicateKeyError(err)) throw err;
            // Shared at the same time by another request: its link is the one (an expired one, not yet swept, goes).
            const other: LinkDoc | null = await this.adapter.findOne({ owner_key });
            if (other && live(other)) return { ...shape(other), detail: "Episode shared" };
            if (!other || attempt >= 2) throw err;
            await this.adapter.removeMany({ _id: other._id, owner_key });
          }
        }
      },
    },
    /**
     * GET /api/data/episode_by_url/{url_key} (no key): the episode and where to play it; 404 when the link
     * or the episode is gone. A local podcast's episode (a `local:` address nobody else can open) plays
     * through shared_stream of the same key.
     */
    episode_by_url: {
      idempotent: true,
      params: { url_key: urlKey },
      response: SharedEpisodeAnswer,
      async handler(this: SharingThis, ctx: Ctx<{ url_key: string }>): Promise<SharedEpisodeAnswer> {
        const { link, e } = await this.sharedEpisode(ctx, ctx.params.url_key);
        const stream_url = isLocalFeed(e.episodeurl) ? `${publicOrigin(ctx.meta)}/api/data/shared_stream/${link.url_key}` : e.episodeurl;
        // The sharer's own state of the episode (position, saved, completed) is not shown.
        return {
          episode: {
            episodeid: e.episodeid,
            podcastid: e.podcastid,
            podcastname: e.podcastname,
            episodetitle: e.episodetitle,
            episodepubdate: e.episodepubdate,
            episodedescription: e.episodedescription,
            episodeartwork: e.episodeartwork || e.podcast_artwork || "",
            episodeurl: e.episodeurl,
            episodeduration: e.episodeduration,
            enclosure_type: e.enclosure_type,
            is_vidsite: e.is_vidsite,
            is_youtube: e.is_youtube,
          },
          stream_url,
          expires_at: shape(link).expires_at,
        };
      },
    },
    /**
     * GET|HEAD /api/data/shared_stream/{url_key} (no key): the file of a shared local episode, with Range,
     * for as long as the link lives (deleted or expired: 404). Only that one file: the key names it.
     */
    shared_stream: {
      idempotent: true,
      params: { url_key: urlKey },
      response: MediaAnswer,
      // A Binary answer: the file as localFileAnswer streams it (its schema types it as a string for OpenAPI).
      async handler(this: SharingThis, ctx: Ctx<{ url_key: string }> & { meta: MediaAnswerMeta }): Promise<unknown> {
        const { e } = await this.sharedEpisode(ctx, ctx.params.url_key);
        if (!isLocalFeed(e.episodeurl)) throw new NotFoundError("This episode plays from its own address (stream_url of episode_by_url)");
        return localFileAnswer(ctx, e.episodeurl, { "Accept-Ranges": "bytes", "Cache-Control": "private, max-age=0" });
      },
    },
    /** DELETE /api/data/delete_shared_link: body url_key (share_code, as PinePods' web client names it), or episode_id (the caller's link of it). */
    delete_shared_link: {
      params: { url_key: { ...urlKey, optional: true }, share_code: { ...urlKey, optional: true }, episode_id: { ...id, optional: true } },
      response: DetailAnswer,
      async handler(this: SharingThis, ctx: Ctx<{ url_key?: string; share_code?: string; episode_id?: number }>): Promise<Static<typeof DetailAnswer>> {
        const user = ctx.meta.user!;
        const { episode_id } = ctx.params;
        const url_key = ctx.params.url_key ?? ctx.params.share_code;
        if (!url_key && !episode_id) throw new BadRequestError("Send url_key (or episode_id) of the link");
        const link: LinkDoc | null = await this.adapter.findOne(url_key ? { url_key } : { user_id: user.id, episode_id });
        if (!link) throw new NotFoundError("Shared link not found");
        if (link.user_id !== user.id && !user.isAdmin) throw new ForbiddenError("This link was shared by another user");
        await this.adapter.removeMany({ _id: link._id });
        return { detail: "Shared link deleted" };
      },
    },
    /** GET /api/data/get_user_shared_links/{user_id}: the user's live links with their episode and expiry. */
    get_user_shared_links: {
      idempotent: true,
      params: { user_id: id },
      response: SharedLinksAnswer,
      async handler(this: SharingThis, ctx: Ctx<{ user_id: number }>): Promise<SharedLinksAnswer> {
        const links: LinkDoc[] = (await this.adapter.find({ query: { user_id: ctx.params.user_id } })).filter(live);
        const items: EpisodeMediaItem[] = links.length
          ? await episodeItems(ctx, { user_id: ctx.params.user_id, episode_ids: links.map((l) => l.episode_id), include_unsubscribed: true })
          : [];
        const byId = new Map(items.map((e) => [e.episodeid, e]));
        const when = (l: LinkDoc) => (l.expires_at ? new Date(l.expires_at).getTime() : Infinity);
        const shared_links = links
          .filter((l) => byId.has(l.episode_id))
          .sort((a, b) => when(a) - when(b) || a._id - b._id)
          .map((l): SharedLinkView => {
            const { expires_at } = shape(l);
            const e = byId.get(l.episode_id)!;
            return {
              share_code: l.url_key,
              expiration_date: expires_at ?? "never",
              expires_at,
              episode_id: l.episode_id,
              episode_title: e.episodetitle,
              podcast_name: e.podcastname,
            };
          });
        return { shared_links };
      },
    },
    /** PUT /api/data/extend_shared_link: share_code, days 1-365 added to its expiry; 400 for a link that never expires (the sharer or an admin). */
    extend_shared_link: {
      params: { share_code: urlKey, days: { type: "number", integer: true, min: 1, max: 365, convert: true } },
      response: ExtendedLinkAnswer,
      async handler(this: SharingThis, ctx: Ctx<{ share_code: string; days: number }>): Promise<ExtendedLinkAnswer> {
        const user = ctx.meta.user!;
        const link: LinkDoc | null = await this.adapter.findOne({ url_key: ctx.params.share_code });
        if (!link || !live(link)) throw new NotFoundError("Shared link not found or expired");
        if (link.user_id !== user.id && !user.isAdmin) throw new ForbiddenError("This link was shared by another user");
        if (!link.expires_at) throw new BadRequestError("This link never expires");
        const expires_at = new Date(new Date(link.expires_at).getTime() + ctx.params.days * DAY_MS);
        // Only while it is the expiry just read: two extensions at once both count.
        const changed = await this.adapter.updateMany({ _id: link._id, expires_at: link.expires_at }, { $set: { expires_at } });
        if (!changed) return this.actions.extend_shared_link<Promise<ExtendedLinkAnswer>>(ctx.params, { parentCtx: ctx, meta: ctx.meta });
        return { detail: "Shared link extended", expires_at: expires_at.toISOString() };
      },
    },
  },
  methods: {
    /** The live link of a key and its episode (read as its sharer sees it); 404 when either is gone. */
    async sharedEpisode(this: SharingThis, ctx: Caller, url_key: string): Promise<{ link: LinkDoc; e: EpisodeMediaItem }> {
      const link: LinkDoc | null = await this.adapter.findOne({ url_key });
      if (!link || !live(link)) throw new NotFoundError("Shared link not found or expired");
      const [e]: EpisodeMediaItem[] = await episodeItems(ctx, { user_id: link.user_id, episode_ids: [link.episode_id], include_unsubscribed: true });
      if (!e) throw new NotFoundError("The shared episode no longer exists");
      return { link, e };
    },
  },
  events: {
    "user.removed": userRemovedEvent({ adapter: "user_id" }),
  },
};

export default SharingService;
