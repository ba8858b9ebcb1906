/**
 * Video channels as podcasts (spec: search_vidsite_channels, check_vidsite_channel, vidsite/subscribe,
 * vidsite_episodes, remove_vidsite_channel). No collection of its own: a subscribed channel is a
 * podcast record (podcasts) whose feed URL is the channel's address, its videos are episodes
 * (episodes), and the search service finds channels and lists their recent videos. feeds reads such a
 * feed through channel_feed, so the scheduler refreshes subscribed channels like any other podcast.
 */
import type { Service, ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { parseFeed } from "../shared/feed-parser";
import type { FetchedFeed } from "../shared/contracts/feeds";
import type { VidsiteChannelDetails, VidsiteSearchResult } from "../shared/contracts/search";
import { search, vidsiteChannel } from "../shared/contracts/search";
import { CHANNEL_ID, vidsiteChannelId, vidsiteChannelUrl } from "../shared/contracts/vidsite";
import { BadRequestError } from "../shared/errors";
import { PROVIDER_CIRCUIT_BREAKER as circuitBreaker } from "../shared/provider";
import { sha256Hex } from "../shared/secrets";
import { VidsiteChannelsAnswer, VidsiteEpisodesAnswer, VidsiteSubscribeAnswer } from "../shared/contracts/vidsite";
import { addCustomPodcast, checkPodcast, ExistsAnswer, removePodcast } from "../shared/contracts/podcasts";
import { podcastEpisodes, type EpisodesPageAnswer } from "../shared/contracts/episodes";
import { SuccessAnswer, type Static, type TSchema } from "../shared/contracts/answers";
import type { TypedAction } from "../shared/contracts/call";
import type { Ctx } from "../shared/service-types";

const id = { type: "number", integer: true, positive: true, convert: true };

type VidsiteThis = Service;

/** check_vidsite_channel and remove_vidsite_channel: the podcasts action that finds a podcast by its title and feed URL. */
function byChannelName<R>(action: TypedAction<{ user_id: number; podcast_name: string; podcast_url: string }, R>, response: TSchema) {
  return {
    response,
    params: { user_id: id, channel_name: { type: "string", trim: true, max: 1000 }, channel_url: { type: "string", trim: true, max: 4000 } },
    handler(this: VidsiteThis, ctx: Ctx<{ user_id: number; channel_name: string; channel_url: string }>): Promise<R> {
      return action(ctx, { user_id: ctx.params.user_id, podcast_name: ctx.params.channel_name, podcast_url: ctx.params.channel_url });
    },
  };
}

const XML_ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };
function escapeXml(text: string): string {
  // Control characters are not allowed in XML 1.0 at all (video descriptions do carry them).
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, "").replace(/[&<>"']/g, (c) => XML_ENTITIES[c]);
}

/** "PT#M#S" (or any ISO 8601 duration of hours, minutes, seconds) in seconds. */
function seconds(iso: string): number {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$/.exec(iso);
  return m ? Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0) : 0;
}

function embedUrl(videoId: string): string {
  return `${config.vidsiteUrl.replace(/\/$/, "")}/embed/${encodeURIComponent(videoId)}`;
}

/** The channel as an RSS document, so that the one feed parser turns it into the feed shape refreshes store. */
function channelRss(c: VidsiteChannelDetails): string {
  const image = (url: string) => (url ? `<itunes:image href="${escapeXml(url)}"/>` : "");
  const items = c.recentVideos.map((v) =>
    [
      "<item>",
      `<title>${escapeXml(v.title)}</title>`,
      `<guid isPermaLink="false">${escapeXml(v.id)}</guid>`,
      `<link>${escapeXml(v.url)}</link>`,
      `<description>${escapeXml(v.description)}</description>`,
      v.publishedAt ? `<pubDate>${new Date(v.publishedAt).toUTCString()}</pubDate>` : "",
      // The enclosure is the embed address: refreshes match episodes on the enclosure URL without its
      // query, and every watch?v= address is the same without it.
      `<enclosure url="${escapeXml(embedUrl(v.id))}" type="video/mp4" length="0"/>`,
      `<itunes:duration>${seconds(v.duration)}</itunes:duration>`,
      image(v.thumbnail),
      "</item>",
    ].join(""),
  );
  return (
    `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>` +
    `<title>${escapeXml(c.name)}</title><link>${escapeXml(c.url)}</link><description>${escapeXml(c.description)}</description>` +
    `<itunes:author>${escapeXml(c.name)}</itunes:author>${image(c.thumbnailUrl)}${items.join("")}</channel></rss>`
  );
}

const VidsiteService: ServiceSchema<Record<string, never>, VidsiteThis> = {
  name: "vidsite",
  actions: {
    /** GET /api/data/search_vidsite_channels */
    search_vidsite_channels: {
      idempotent: true,
      response: VidsiteChannelsAnswer,
      circuitBreaker,
      params: {
        query: { type: "string", trim: true, min: 1, max: 500 },
        user_id: id,
        max_results: { type: "number", integer: true, min: 1, max: 25, convert: true, optional: true },
      },
      async handler(this: VidsiteThis, ctx: Ctx<{ query: string; user_id: number; max_results?: number }>): Promise<Static<typeof VidsiteChannelsAnswer>> {
        // index vidsite: the search service answers channels.
        const found = (await search(ctx, { query: ctx.params.query, index: "vidsite" })) as VidsiteSearchResult;
        return {
          channels: found.results.slice(0, ctx.params.max_results ?? 5).map((c) => ({
            channel_id: c.channelId,
            name: c.name,
            description: c.description,
            subscriber_count: null,
            thumbnail: c.thumbnailUrl,
            url: c.url,
          })),
        };
      },
    },
    /** GET /api/data/check_vidsite_channel: is the user subscribed to the channel of this name and address. */
    check_vidsite_channel: { ...byChannelName(checkPodcast, ExistsAnswer), idempotent: true },
    /** POST /api/data/vidsite/subscribe: 409 when already subscribed; feed_cutoff (days of videos kept) defaults to 30. */
    subscribe: {
      response: VidsiteSubscribeAnswer,
      circuitBreaker,
      params: {
        channel_id: { type: "string", trim: true, max: 100 },
        user_id: id,
        feed_cutoff: { type: "number", integer: true, min: 0, max: 365, convert: true, optional: true },
      },
      async handler(
        this: VidsiteThis,
        ctx: Ctx<{ channel_id: string; user_id: number; feed_cutoff?: number }>,
      ): Promise<Static<typeof VidsiteSubscribeAnswer>> {
        const { channel_id, user_id } = ctx.params;
        if (!CHANNEL_ID.test(channel_id)) throw new BadRequestError("channel_id must be a channel id or @handle");
        const added = await addCustomPodcast(ctx, {
          feed_url: vidsiteChannelUrl(channel_id),
          user_id,
          feed_cutoff: ctx.params.feed_cutoff ?? 30,
        });
        return { success: true, message: "Subscribed to the channel", podcast_id: added.podcast_id };
      },
    },
    /** GET /api/data/vidsite_episodes: the videos of a subscribed channel, newest first. */
    vidsite_episodes: {
      idempotent: true,
      params: { user_id: id, podcast_id: id },
      response: VidsiteEpisodesAnswer,
      async handler(this: VidsiteThis, ctx: Ctx<{ user_id: number; podcast_id: number }>): Promise<Static<typeof VidsiteEpisodesAnswer>> {
        const { episodes }: EpisodesPageAnswer = await podcastEpisodes(ctx, { user_id: ctx.params.user_id, podcast_id: ctx.params.podcast_id });
        return {
          // The documents' fields, then the list item as PinePods' web client reads a video (completed is in both).
          episodes: episodes.map((e) => ({
            episode_id: e.episodeid,
            episode_title: e.episodetitle,
            episode_description: e.episodedescription,
            episode_url: e.episodeurl,
            episode_artwork: e.episodeartwork,
            episode_duration: e.episodeduration,
            episode_pubdate: e.episodepubdate,
            listened: (e.listenduration ?? 0) > 0,
            ...e,
          })),
        };
      },
    },
    /** POST /api/data/remove_vidsite_channel: 404 when not subscribed. */
    remove_vidsite_channel: byChannelName(removePodcast, SuccessAnswer),

    // --- Internal actions (not in the route table) ---

    /** A video channel read as a feed (the shape of feeds.fetch_feed): unchanged when its videos are the same as last time. */
    channel_feed: {
      circuitBreaker,
      visibility: "public",
      params: { url: "string", content_hash: { type: "string", optional: true, nullable: true } },
      async handler(this: VidsiteThis, ctx: Ctx<{ url: string; content_hash?: string | null }>): Promise<FetchedFeed> {
        const channel = vidsiteChannelId(ctx.params.url);
        if (!channel) throw new BadRequestError("Not a video channel address");
        const details: VidsiteChannelDetails = await vidsiteChannel(ctx, { id: channel });
        const rss = channelRss(details);
        const content_hash = sha256Hex(rss);
        const base = { final_url: ctx.params.url, etag: null, last_modified: null, content_hash };
        if (content_hash === ctx.params.content_hash) return { unchanged: true, ...base, feed: null };
        return { unchanged: false, ...base, feed: parseFeed(rss, { baseUrl: ctx.params.url }) };
      },
    },
  },
};

export default VidsiteService;
