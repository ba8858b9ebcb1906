/** What the collections service answers (services/collections.service.ts), in PinePods' web client's shapes. */

/** A collection as collections/user/{user_id} lists it. */
export interface CollectionView {
  collection_id: number;
  user_id: number;
  name: string;
  description: string | null;
  /** The user's "Saved" collection: its episodes are their saved episodes. */
  is_default: boolean;
  icon: string;
  created_at: string;
  last_updated: string;
  /** Episodes in it the user sees now. */
  episode_count: number;
  auto_add_categories: string[] | null;
  /** Its podcasts the user is subscribed to: added by hand or through auto_add_categories. */
  podcast_ids: number[];
}

/** collections/categories/{user_id}: the distinct categories of the user's podcasts. */
export interface UserCategories {
  categories: string[];
}

/** episode_collections/{user_id}/{episode_id}: the collections holding the episode. */
export interface EpisodeCollections {
  collection_ids: number[];
}
