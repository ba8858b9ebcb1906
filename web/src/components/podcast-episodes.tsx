/**
 * A podcast's episodes, newest first, 50 at a time (a feed of 10,000 episodes never loads whole), and
 * searchable by title and notes on the server (podcast_episodes' search).
 */
import { useState } from "preact/hooks";
import { api, ok } from "../api";
import { me } from "../session";
import { ErrorNote } from "../ui";
import { EpisodeItem, LoadMore } from "./episode-item";
import { useDebounced, usePaged } from "./paged";
import { listFilter } from "./podcast-filters";

const PAGE = 50;

export function PodcastEpisodes({ podcastId }: { podcastId: number }) {
  const user_id = me().user_id;
  const [typed, setTyped] = useState("");
  const search = useDebounced(typed.trim(), 300);
  // Only what the person's episode filters let through, when they ask (podcast-filters.tsx); read again after each save.
  const filtered = listFilter.value?.podcast_id === podcastId ? listFilter.value.saves + 1 : 0;
  const paged = usePaged(
    async (offset, limit) => {
      const r = await ok(
        api.GET("/api/data/podcast_episodes", {
          params: {
            query: {
              user_id,
              podcast_id: podcastId,
              limit,
              offset,
              sort_by: "pub_date",
              sort_order: "desc",
              ...(search ? { search } : {}),
              ...(filtered ? { filtered: true } : {}),
            },
          },
        }),
      );
      return { items: r.episodes, total: r.total };
    },
    PAGE,
    [user_id, podcastId, search, filtered],
  );
  return (
    <section aria-labelledby="episodes-h">
      <h2 id="episodes-h">Episodes</h2>
      <form class="episode-search" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search episodes
          <input type="search" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        </label>
      </form>
      <ErrorNote error={paged.error} />
      {!paged.loading && !paged.error && !paged.items.length && (
        <p class="muted">{search ? `No episode matches “${search}”.` : filtered ? "No episode passes your filters." : "No episodes yet."}</p>
      )}
      {paged.items.length > 0 && (
        <ul class="list">
          {paged.items.map((e) => (
            <EpisodeItem key={e.episodeid} episode={e} showPodcast={false} />
          ))}
        </ul>
      )}
      <LoadMore shown={paged.items.length} total={paged.total} what="episodes" loading={paged.loading} hasMore={paged.hasMore} more={paged.more} />
    </section>
  );
}
