/** Answers of the people service's routes. */
import { action } from "./call";
import type { HostedBy } from "./following";
import { Nullable, Type, type Static } from "./answers";

/** podpeople/discover: the people database's listing of that kind (entries, or its totals), passed on as it answers. */
export const DiscoverAnswer = Type.Union([Type.Array(Type.Record(Type.String(), Type.Unknown())), Type.Record(Type.String(), Type.Unknown())]);
/** host_podcasts: the documents' success and podcasts; each as the web client reads it (podcastid, podcastname, feedurl) and the directory's fields. */
export const HostPodcastsAnswer = Type.Object({
  success: Type.Boolean(),
  podcasts: Type.Array(
    Type.Object({
      podcastid: Type.Integer(),
      podcastname: Type.String(),
      feedurl: Type.String(),
      podcast_index_id: Type.Integer(),
      title: Type.String(),
      feed_url: Type.String(),
      author: Nullable(Type.String()),
      artwork_url: Nullable(Type.String()),
      description: Nullable(Type.String()),
    }),
  ),
});
export type HostPodcastsAnswer = Static<typeof HostPodcastsAnswer>;
export const RefreshHostsAnswer = Type.Object({ success: Type.Boolean(), detail: Type.String(), refreshed: Type.Integer(), failed: Type.Integer() });
export type RefreshHostsAnswer = Static<typeof RefreshHostsAnswer>;

// --- Calls to the people service and its events (shared/contracts/call.ts) ---

/** By lower-cased name, the people database's podcasts they host and their picture. */
export const hostedBy = action<{ names: string[] }, HostedBy>("people.hosted_by");
/** The stored hosts of podcasts, by directory id. */
export const podcastHosts = action<{ podcast_index_ids: number[] }, Record<number, unknown[]>>("people.podcast_hosts");
