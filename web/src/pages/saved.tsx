/** Saved episodes, newest save first, a page at a time; each plays, or leaves the list with "Remove from saved". */
import { useState } from "preact/hooks";
import { api, errorText, ok } from "../api";
import { me } from "../session";
import { ErrorNote, Loading, PageTitle } from "../ui";
import { usePaged } from "../components/paged";
import { EpisodeItem, LoadMore } from "../components/episode-item";

const PAGE = 25;

export default function Saved() {
  const { user_id } = me();
  const list = usePaged(
    async (offset, limit) => {
      const r = await ok(api.GET("/api/data/saved_episode_list/{user_id}", { params: { path: { user_id }, query: { offset, limit } } }));
      return { items: r.saved_episodes, total: r.total };
    },
    PAGE,
    [user_id],
  );
  // Removed here and now: hidden without reloading the pages already shown.
  const [removed, setRemoved] = useState<Set<number>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [said, say] = useState("");
  const shown = list.items.filter((e) => !removed.has(e.episodeid));

  const unsave = async (episode_id: number, title: string, is_vidsite: boolean) => {
    setError(null);
    try {
      await ok(api.POST("/api/data/remove_saved_episode", { body: { episode_id, user_id, is_vidsite } }));
      setRemoved(new Set(removed).add(episode_id));
      say(`${title} removed from saved episodes.`);
      document.querySelector<HTMLElement>("h1")?.focus();
    } catch (err) {
      setError(`${title} was not removed: ${errorText(err)}`);
    }
  };

  return (
    <>
      <PageTitle title="Saved">Saved</PageTitle>
      <p role="status" class="visually-hidden">
        {said}
      </p>
      <ErrorNote error={list.error ?? error} />
      <h2 class="visually-hidden">Saved episodes</h2>
      {list.loading && !list.items.length ? (
        <Loading what="saved episodes" />
      ) : !list.error && !shown.length ? (
        <p class="muted">No saved episodes yet. “Save” on an episode keeps it here.</p>
      ) : (
        <>
          <ul class="list">
            {shown.map((e) => (
              <EpisodeItem key={e.episodeid} episode={e}>
                <button type="button" class="secondary" onClick={() => void unsave(e.episodeid, e.episodetitle, e.is_vidsite)}>
                  Remove from saved<span class="visually-hidden"> {e.episodetitle}</span>
                </button>
              </EpisodeItem>
            ))}
          </ul>
          <LoadMore
            shown={shown.length}
            total={list.total - removed.size}
            what="saved episodes"
            loading={list.loading}
            hasMore={list.hasMore}
            more={list.more}
          />
        </>
      )}
    </>
  );
}
