/** Answers of the sharing service's routes. */
import { Nullable, Type, type Static } from "./answers";
import { EpisodeListItem } from "./episodes";

export const ShareAnswer = Type.Object({ url_key: Type.String(), episode_id: Type.Integer(), share_path: Type.String(), expires_at: Nullable(Type.String()), detail: Type.String() });
export type ShareAnswer = Static<typeof ShareAnswer>;
/** episode_by_url: the shared episode as the web client's Episode reads it, and where it plays. */
export const SharedEpisodeAnswer = Type.Object({
  episode: Type.Composite([
    Type.Pick(EpisodeListItem, ["episodeid", "podcastid", "podcastname", "episodetitle", "episodepubdate", "episodedescription", "episodeartwork", "episodeurl", "episodeduration", "is_vidsite"]),
    Type.Object({ enclosure_type: Nullable(Type.String()) }),
  ]),
  stream_url: Type.String(),
  expires_at: Nullable(Type.String()),
});
export type SharedEpisodeAnswer = Static<typeof SharedEpisodeAnswer>;
