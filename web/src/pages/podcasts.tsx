/**
 * Podcasts: the subscriptions with their artwork, adding one by its feed address, OPML import and export.
 * The grid asks for 60 subscriptions at a time ("Show more"), by title, and the filter asks the server, so
 * a library of 1,000 never travels whole.
 */
import { useEffect, useState } from "preact/hooks";
import { api, imageUrl, ok } from "../api";
import { me } from "../session";
import { ErrorNote, Loading, Outcome, PageTitle, useAction } from "../ui";
import { useDebounced, usePaged } from "../components/paged";
import { OpmlTools } from "../components/opml-tools";

const STEP = 60;

function AddPodcast({ onAdded }: { onAdded: () => void }) {
  const [url, setUrl] = useState("");
  const add = useAction();
  // The podcast just added, for the link in the success line.
  const [added, setAdded] = useState<number | null>(null);
  const submit = (ev: Event) => {
    ev.preventDefault();
    if (add.busy) return;
    void add.run(async () => {
      setAdded(null);
      const res = await ok(api.POST("/api/data/add_podcast", { body: { podcast_values: { pod_feed_url: url.trim(), user_id: me().user_id } } }));
      setAdded(res.podcast_id);
      setUrl("");
      onAdded();
    });
  };
  return (
    <section aria-labelledby="add-h">
      <h2 id="add-h">Add a podcast</h2>
      <form class="stack add-podcast" onSubmit={submit}>
        <label>
          Feed URL
          <input
            type="url"
            required
            inputMode="url"
            autoComplete="off"
            placeholder="https://example.com/feed.xml"
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        </label>
        <div class="actions">
          <button type="submit">{add.busy ? "Adding…" : "Add podcast"}</button>
        </div>
      </form>
      <Outcome
        of={add}
        done={
          added !== null && (
            <>
              Added. <a href={`/podcast/${added}`}>Open the podcast</a>
            </>
          )
        }
      />
    </section>
  );
}

export default function Podcasts() {
  const user_id = me().user_id;
  const [filter, setFilter] = useState("");
  const search = useDebounced(filter.trim());
  const pods = usePaged(
    async (offset, limit) => {
      const res = await ok(
        api.GET("/api/data/return_pods/{user_id}", { params: { path: { user_id }, query: { limit, offset, ...(search ? { search } : {}) } } }),
      );
      return { items: res.pods, total: res.total };
    },
    STEP,
    [user_id, search],
  );
  // The library's size, from the answer without a filter (the filter shows only past half a page of them).
  const [librarySize, setLibrarySize] = useState(0);
  useEffect(() => {
    if (!search && !pods.loading && !pods.error) setLibrarySize(pods.total);
  }, [search, pods.loading, pods.error, pods.total]);
  const visible = pods.items;

  return (
    <>
      <PageTitle title="Podcasts">Podcasts</PageTitle>
      <AddPodcast onAdded={pods.reload} />
      <section aria-labelledby="subs-h">
        <h2 id="subs-h">Subscriptions{librarySize ? ` (${librarySize.toLocaleString()})` : ""}</h2>
        <ErrorNote error={pods.error} />
        {pods.loading && !visible.length && <Loading what="subscriptions" />}
        {!pods.loading && !search && !visible.length && !pods.error && (
          <p class="muted">
            No subscriptions yet. Add a feed above or <a href="/search">search the directory</a>.
          </p>
        )}
        {librarySize > STEP / 2 && (
          <label class="filter">
            Filter subscriptions
            <input type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
          </label>
        )}
        {visible.length > 0 && (
          <ul class="grid podcast-grid">
            {visible.map((p) => (
              <li key={p.podcast_id}>
                <a class="podcast-tile" href={`/podcast/${p.podcast_id}`}>
                  {p.artwork_url ? (
                    <img src={imageUrl(p.artwork_url)} alt="" loading="lazy" width={160} height={160} />
                  ) : (
                    <span class="art tile-art" aria-hidden="true" />
                  )}
                  <span class="tile-title">{p.title}</span>
                  <span class="muted tile-meta">{p.episode_count.toLocaleString()} episodes</span>
                </a>
              </li>
            ))}
          </ul>
        )}
        {search && !pods.loading && !visible.length && <p class="muted">No subscription matches “{search}”.</p>}
        {pods.hasMore && (
          <div class="load-more">
            <p class="muted">
              Showing {visible.length.toLocaleString()} of {pods.total.toLocaleString()}
            </p>
            <button type="button" class="secondary" onClick={pods.more} disabled={pods.loading}>
              Show more
            </button>
          </div>
        )}
      </section>
      <OpmlTools onImported={pods.reload} />
    </>
  );
}
