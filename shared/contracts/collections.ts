/** What the collections service answers (services/collections.service.ts), in PinePods' web client's shapes. */
import { Nullable, Type, type Static } from "./answers";
import { SavedEpisodesAnswer } from "./episodes";

/** A collection as collections/user/{user_id} lists it. */
export const CollectionView = Type.Object({
  collection_id: Type.Integer(),
  user_id: Type.Integer(),
  name: Type.String(),
  description: Nullable(Type.String()),
  /** The user's "Saved" collection: its episodes are their saved episodes. */
  is_default: Type.Boolean(),
  icon: Type.String(),
  created_at: Type.String({ format: "date-time" }),
  last_updated: Type.String({ format: "date-time" }),
  episode_count: Type.Integer({ description: "Episodes in it the user sees now" }),
  auto_add_categories: Nullable(Type.Array(Type.String())),
  podcast_ids: Type.Array(Type.Integer(), { description: "Its podcasts the user is subscribed to: added by hand or through auto_add_categories" }),
});
export type CollectionView = Static<typeof CollectionView>;

/** GET /api/data/collections/user/{user_id} */
export const CollectionsAnswer = Type.Object({ collections: Type.Array(CollectionView) });
export type CollectionsAnswer = Static<typeof CollectionsAnswer>;

/** POST /api/data/collections/create */
export const CreateCollectionAnswer = Type.Object({ detail: Type.String(), collection_id: Type.Integer() });
export type CreateCollectionAnswer = Static<typeof CreateCollectionAnswer>;

/** GET /api/data/collections/categories/{user_id}: the distinct categories of the user's podcasts. */
export const UserCategories = Type.Object({ categories: Type.Array(Type.String()) });
export type UserCategories = Static<typeof UserCategories>;

/** GET /api/data/episode_collections/{user_id}/{episode_id}: the collections holding the episode. */
export const EpisodeCollections = Type.Object({ collection_ids: Type.Array(Type.Integer()) });
export type EpisodeCollections = Static<typeof EpisodeCollections>;

/** GET /api/data/collections/{collection_id}/episodes: one page and the total after the filter, as saved_episode_list answers. */
export const CollectionEpisodesAnswer = SavedEpisodesAnswer;
export type CollectionEpisodesAnswer = Static<typeof CollectionEpisodesAnswer>;
/** An episode of a collection, as saved_episode_list shows one. */
export type CollectionEpisode = CollectionEpisodesAnswer["saved_episodes"][number];
