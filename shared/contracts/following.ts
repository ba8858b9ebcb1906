/**
 * Following people across podcasts (services/following.service.ts): the internal shapes it exchanges
 * with the people, podcasts and episodes services, and the answers of its routes in PinePods' web
 * client's shapes (web/src/requests/people_req.rs).
 */
import { action } from "./call";
import { Nullable, Type, type Static } from "./answers";
import { EpisodeListItem } from "./episodes";

/** people.hosted_by result: by lower-cased name, the directory ids of the podcasts the people database says they host, and their picture. */
export type HostedBy = Record<string, { podcast_index_ids: number[]; img: string | null }>;

/** episodes.episode_people result item: an episode and the people its podcast:person names. */
export interface EpisodePeople {
  episode_id: number;
  podcast_id: number;
  title: string;
  url: string | null;
  pub_date: string | null;
  people: string[];
}

/** A person as the podcasts and episodes services look them up: their name, and the podcasts they belong to as a whole. */
export interface PersonQuery {
  name: string;
  /** Directory ids of podcasts the people database names them in (podcasts.podcasts_naming). */
  podcast_index_ids?: number[];
  /** Podcasts naming them in their channel or through the people database (episodes.person_episodes). */
  podcast_ids?: number[];
}

/** A podcast stored on this server that names a person. */
export interface NamingPodcast {
  podcast_id: number;
  title: string;
  feed_url: string;
  artwork_url: string | null;
  description: string | null;
  author: string | null;
  website_url: string | null;
  episode_count: number;
  podcast_index_id: number | null;
  explicit: boolean;
  /** The picture the feed gives of the person, when it does. */
  person_img: string | null;
  /** The asking user is subscribed to it. */
  subscribed: boolean;
}

/** podcasts.podcasts_naming result: per person (in the asked order), the podcasts naming them. */
export type PodcastsNaming = NamingPodcast[][];

/** POST /api/data/person/subscribe/{user_id}/{person_id} */
export const FollowAnswer = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  person_id: Type.Integer({ description: "This server's id of the followed person" }),
});
export type FollowAnswer = Static<typeof FollowAnswer>;

/** A followed person as person/subscriptions lists them. */
export const FollowedPerson = Type.Object({
  personid: Type.Integer(),
  userid: Type.Integer(),
  name: Type.String(),
  image: Type.String({ description: "Empty when no picture is known" }),
  peopledbid: Nullable(Type.Integer({ description: "The people database's id, when followed from it" })),
  associatedpodcasts: Type.Integer({ description: "Podcasts on this server naming them" }),
  episode_count: Type.Integer({ description: "Episodes they appear in" }),
});
export type FollowedPerson = Static<typeof FollowedPerson>;

/** GET /api/data/person/subscriptions/{user_id} */
export const FollowedPeopleAnswer = Type.Object({ subscriptions: Type.Array(FollowedPerson) });
export type FollowedPeopleAnswer = Static<typeof FollowedPeopleAnswer>;

/** An episode a person appears in: a list item (the user's state when subscribed) and whether the user is subscribed to its podcast. */
export const PersonEpisode = Type.Composite([EpisodeListItem, Type.Object({ is_subscribed: Type.Boolean() })]);
export type PersonEpisode = Static<typeof PersonEpisode>;

/** episodes.person_episodes result item: one person's page (limit 0: counts only) and total. */
export interface PersonEpisodesPage {
  total: number;
  episodes: PersonEpisode[];
}

/** GET /api/data/person/episodes/{user_id}/{person_id} */
export const PersonEpisodesAnswer = Type.Object({ episodes: Type.Array(PersonEpisode), total: Type.Integer() });
export type PersonEpisodesAnswer = Static<typeof PersonEpisodesAnswer>;

/** A podcast of the host feed, as the web client's HostFeedPodcast. */
export const HostFeedPodcast = Type.Object({
  podcastid: Type.Integer(),
  podcastname: Type.String(),
  feedurl: Type.String(),
  artworkurl: Type.String(),
  description: Type.String(),
  author: Type.String(),
  websiteurl: Type.String(),
  episodecount: Type.Integer(),
  podcastindexid: Type.Integer({ description: "0 when unknown" }),
  explicit: Type.Boolean(),
  is_subscribed: Type.Boolean(),
});
export type HostFeedPodcast = Static<typeof HostFeedPodcast>;

/** GET /api/data/person/feed/{user_id}?name&include_podcasts&person_id */
export const HostFeedAnswer = Type.Object({
  person: Type.Object({ name: Type.String(), image: Nullable(Type.String()) }),
  podcasts: Type.Array(HostFeedPodcast),
  episodes: Type.Array(PersonEpisode),
});
export type HostFeedAnswer = Static<typeof HostFeedAnswer>;

// --- Calls to the following service and its events (shared/contracts/call.ts) ---

/** The names of the people the user follows. */
export const followedNames = action<{ user_id: number }, string[]>("following.followed_names");
