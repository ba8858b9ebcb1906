/** A search of the person's own library (search_data): podcasts and episodes, 20 at a time. */
import { useState } from "preact/hooks";
import { api, imageUrl, ok } from "../api";
import { me } from "../session";
import { ErrorNote } from "../ui";
import { EpisodeItem, LoadMore } from "./episode-item";
import { usePaged } from "./paged";

const PAGE = 20;

export function LibrarySearch() {
  const user_id = me().user_id;
  const [typed, setTyped] = useState("");
  const [term, setTerm] = useState("");
  const paged = usePaged(
    async (offset, limit) => {
      if (!term) return { items: [], total: 0 };
      const r = await ok(api.POST("/api/data/search_data", { body: { user_id, search_term: term, limit, offset } }));
      return { items: r.data, total: r.total };
    },
    PAGE,
    [user_id, term],
  );
  return (
    <section aria-labelledby="library-h">
      <h2 id="library-h">My library</h2>
      <form
        class="search-form"
        role="search"
        aria-label="Library search"
        onSubmit={(e) => {
          e.preventDefault();
          setTerm(typed.trim());
        }}
      >
        <label>
          Search my library
          <input type="search" value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />
        </label>
        <button type="submit">Search library</button>
      </form>
      <ErrorNote error={paged.error} />
      {term && !paged.loading && !paged.error && !paged.items.length && <p class="muted">Nothing in your library matches “{term}”.</p>}
      {paged.items.length > 0 && (
        <ul class="list">
          {paged.items.map((r) =>
            "episode_id" in r ? (
              <EpisodeItem key={`e${r.episode_id}`} episode={r} />
            ) : (
              <li key={`p${r.podcast_id}`} class="card">
                {r.artwork_url ? (
                  <img class="art" src={imageUrl(r.artwork_url)} alt="" loading="lazy" width={64} height={64} />
                ) : (
                  <span class="art" aria-hidden="true" />
                )}
                <div class="body">
                  <h3>
                    <a href={`/podcast/${r.podcast_id}`}>{r.podcast_name}</a>
                  </h3>
                  <p class="muted">Podcast{r.author ? ` · ${r.author}` : ""}</p>
                </div>
              </li>
            ),
          )}
        </ul>
      )}
      {term && <LoadMore shown={paged.items.length} total={paged.total} what="results" loading={paged.loading} hasMore={paged.hasMore} more={paged.more} />}
    </section>
  );
}
