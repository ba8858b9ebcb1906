/**
 * Home: "Continue" (episodes in progress, from home_overview) and the newest episodes of the person's
 * subscriptions (return_episodes, a page at a time).
 */
import { api, ok } from "../api";
import { me } from "../session";
import { ErrorNote, Loading, PageTitle, useLoad } from "../ui";
import { EpisodeItem, LoadMore } from "../components/episode-item";
import { usePaged } from "../components/paged";

const PAGE = 20;

function Continue() {
  const user_id = me().user_id;
  const overview = useLoad(() => ok(api.GET("/api/data/home_overview", { params: { query: { user_id } } })), [user_id]);
  const list = overview.data?.in_progress_episodes ?? [];
  return (
    <section aria-labelledby="continue-h">
      <h2 id="continue-h">Continue</h2>
      <ErrorNote error={overview.error} />
      {overview.loading && !overview.data && <Loading what="episodes in progress" />}
      {overview.data && !list.length && <p class="muted">Nothing in progress. Episodes you start show here.</p>}
      {list.length > 0 && (
        <ul class="list">
          {list.map((e) => (
            <EpisodeItem key={e.episodeid} episode={e} />
          ))}
        </ul>
      )}
    </section>
  );
}

function Newest() {
  const user_id = me().user_id;
  const paged = usePaged(
    async (offset, limit) => {
      const r = await ok(api.GET("/api/data/return_episodes/{user_id}", { params: { path: { user_id }, query: { limit, offset } } }));
      return { items: r.episodes, total: r.total };
    },
    PAGE,
    [user_id],
  );
  return (
    <section aria-labelledby="newest-h">
      <h2 id="newest-h">New episodes</h2>
      <ErrorNote error={paged.error} />
      {!paged.loading && !paged.error && !paged.items.length && (
        <p class="muted">
          No episodes yet. <a href="/podcasts">Add a podcast</a> or <a href="/search">search the directory</a>.
        </p>
      )}
      {paged.items.length > 0 && (
        <ul class="list">
          {paged.items.map((e) => (
            <EpisodeItem key={e.episodeid} episode={e} />
          ))}
        </ul>
      )}
      <LoadMore shown={paged.items.length} total={paged.total} what="episodes" loading={paged.loading} hasMore={paged.hasMore} more={paged.more} />
    </section>
  );
}

export default function Home() {
  return (
    <>
      <PageTitle title="Home">Home</PageTitle>
      <Continue />
      <Newest />
    </>
  );
}
