/** Answers of the sharing service's routes. */
import { Nullable, Type, type Static } from "./answers";
import { EpisodeListItem } from "./episodes";

export const ShareAnswer = Type.Object({
  url_key: Type.String(),
  episode_id: Type.Integer(),
  share_path: Type.String(),
  expires_at: Nullable(Type.String()),
  detail: Type.String(),
});
export type ShareAnswer = Static<typeof ShareAnswer>;
/** episode_by_url: the shared episode as the web client's Episode reads it, and where it plays. */
export const SharedEpisodeAnswer = Type.Object({
  episode: Type.Composite([
    Type.Pick(EpisodeListItem, [
      "episodeid",
      "podcastid",
      "podcastname",
      "episodetitle",
      "episodepubdate",
      "episodedescription",
      "episodeartwork",
      "episodeurl",
      "episodeduration",
      "is_vidsite",
      "is_youtube",
    ]),
    Type.Object({ enclosure_type: Nullable(Type.String()) }),
  ]),
  stream_url: Type.String(),
  expires_at: Nullable(Type.String()),
});
export type SharedEpisodeAnswer = Static<typeof SharedEpisodeAnswer>;

/** One of the user's shared links, as PinePods' web client lists them (get_user_shared_links). */
export const SharedLinkView = Type.Object({
  share_code: Type.String({ description: "The link's url_key: episode_by_url/{share_code}" }),
  expiration_date: Type.String({ description: 'When the link stops working (ISO 8601), or "never"' }),
  expires_at: Nullable(Type.String({ format: "date-time" }), { description: "The same as a date, null for never" }),
  episode_id: Type.Integer(),
  episode_title: Type.String(),
  podcast_name: Type.String(),
});
export type SharedLinkView = Static<typeof SharedLinkView>;

/** GET /api/data/get_user_shared_links/{user_id}: live links, soonest expiry first, links that never expire last. */
export const SharedLinksAnswer = Type.Object({ shared_links: Type.Array(SharedLinkView) });
export type SharedLinksAnswer = Static<typeof SharedLinksAnswer>;

/** PUT /api/data/extend_shared_link: the link's new expiry. */
export const ExtendedLinkAnswer = Type.Object({ detail: Type.String(), expires_at: Type.String({ format: "date-time" }) });
export type ExtendedLinkAnswer = Static<typeof ExtendedLinkAnswer>;
