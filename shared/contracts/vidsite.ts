/**
 * Video channels as podcasts (services/vidsite.service.ts): a subscribed channel is a podcast record
 * whose feed URL is the channel's address on the video site; feeds fetches such a "feed" through
 * vidsite.channel_feed, and every list marks its podcasts and episodes is_vidsite.
 */
import { action } from "./call";
import { Nullable, Type, type Static } from "./answers";
import { EpisodeListItem } from "./episodes";
import { config } from "../config";
import type { FetchedFeed } from "./feeds";

/** Channel ids (UC...) and handles (@name); anything else never reaches the extraction tool. */
export const CHANNEL_ID = /^@?[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;

function channelPrefix(): string {
  return `${config.vidsiteUrl.replace(/\/$/, "")}/`;
}

/** The channel's address on the video site: its feed URL as a podcast. */
export function vidsiteChannelUrl(id: string): string {
  return id.startsWith("@") ? `${channelPrefix()}${id}` : `${channelPrefix()}channel/${id}`;
}

/** The channel id of a video channel feed URL, or null for any other feed. */
export function vidsiteChannelId(feedUrl: string): string | null {
  if (!feedUrl.startsWith(channelPrefix())) return null;
  const rest = feedUrl.slice(channelPrefix().length).replace(/\/(videos)?$/, "");
  const id = rest.startsWith("channel/") ? rest.slice("channel/".length) : rest;
  return CHANNEL_ID.test(id) && (id.startsWith("@") || rest.startsWith("channel/")) ? id : null;
}

export function isVidsiteFeed(feedUrl: string | null | undefined): boolean {
  return !!feedUrl && vidsiteChannelId(feedUrl) !== null;
}

// --- Answers of the vidsite service's routes ---
export const VidsiteChannelsAnswer = Type.Object({
  channels: Type.Array(
    Type.Object({
      channel_id: Type.String(),
      name: Type.String(),
      description: Type.String(),
      subscriber_count: Nullable(Type.Integer()),
      thumbnail: Type.String(),
      url: Type.String(),
    }),
  ),
});
export type VidsiteChannelsAnswer = Static<typeof VidsiteChannelsAnswer>;
export const VidsiteSubscribeAnswer = Type.Object({ success: Type.Boolean(), message: Type.String(), podcast_id: Type.Integer() });
export type VidsiteSubscribeAnswer = Static<typeof VidsiteSubscribeAnswer>;
/**
 * The documents' Video channel episode, then the episode list item's fields (episodeid, episodetitle, ...,
 * is_youtube): the names PinePods' web client reads each video by (its Episode).
 */
export const VidsiteEpisodesAnswer = Type.Object({
  episodes: Type.Array(
    Type.Composite([
      Type.Object({
        episode_id: Type.Integer(),
        episode_title: Type.String(),
        episode_description: Type.String(),
        episode_url: Type.String(),
        episode_artwork: Type.String(),
        episode_duration: Type.Integer(),
        episode_pubdate: Type.String(),
        listened: Type.Boolean(),
        completed: Type.Boolean(),
      }),
      EpisodeListItem,
    ]),
  ),
});
export type VidsiteEpisodesAnswer = Static<typeof VidsiteEpisodesAnswer>;

// --- Calls to the vidsite service and its events (shared/contracts/call.ts) ---

/** A video channel read as a feed (the shape of feeds.fetch_feed). */
export const channelFeed = action<{ url: string; content_hash?: string | null }, FetchedFeed>("vidsite.channel_feed");
