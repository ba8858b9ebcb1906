/**
 * Podcasts: the subscriptions with their artwork, adding one by its feed address, OPML import and export.
 * return_pods answers the whole library at once: the grid shows it 60 at a time ("Show more") and a filter
 * narrows it, so 1,000 subscriptions stay smooth.
 */
import { useMemo, useState } from "preact/hooks";
import { api, imageUrl, ok } from "../api";
import { me } from "../session";
import { ErrorNote, Loading, PageTitle, useAction, useLoad } from "../ui";
import { OpmlTools } from "../components/opml-tools";

const STEP = 60;

function AddPodcast({ onAdded }: { onAdded: () => void }) {
  const [url, setUrl] = useState("");
  const add = useAction();
  const [done, setDone] = useState<{ id: number; url: string } | null>(null);
  const submit = (ev: Event) => {
    ev.preventDefault();
    if (add.busy) return;
    add.run(async () => {
      setDone(null);
      const feed = url.trim();
      const res = await ok(api.POST("/api/data/add_podcast", { body: { podcast_values: { pod_feed_url: feed, user_id: me().user_id } } }));
      setDone({ id: res.podcast_id, url: feed });
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
          <input type="url" required inputMode="url" autoComplete="off" placeholder="https://example.com/feed.xml" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        <div class="actions">
          <button type="submit">
            {add.busy ? "Adding…" : "Add podcast"}
          </button>
        </div>
      </form>
      <ErrorNote error={add.error} />
      <p role="status" class="success">
        {done && (
          <>
            Added. <a href={`/podcast/${done.id}`}>Open the podcast</a>
          </>
        )}
      </p>
    </section>
  );
}

export default function Podcasts() {
  const user_id = me().user_id;
  const pods = useLoad(() => ok(api.GET("/api/data/return_pods/{user_id}", { params: { path: { user_id } } })), [user_id]);
  const [filter, setFilter] = useState("");
  const [shown, setShown] = useState(STEP);
  const all = pods.data?.pods ?? [];
  const matching = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return f ? all.filter((p) => p.title.toLowerCase().includes(f) || (p.author ?? "").toLowerCase().includes(f)) : all;
  }, [all, filter]);
  const visible = matching.slice(0, shown);

  return (
    <>
      <PageTitle title="Podcasts">Podcasts</PageTitle>
      <AddPodcast onAdded={() => pods.reload()} />
      <section aria-labelledby="subs-h">
        <h2 id="subs-h">Subscriptions{pods.data ? ` (${all.length.toLocaleString()})` : ""}</h2>
        <ErrorNote error={pods.error} />
        {pods.loading && !pods.data && <Loading what="subscriptions" />}
        {pods.data && !all.length && (
          <p class="muted">
            No subscriptions yet. Add a feed above or <a href="/search">search the directory</a>.
          </p>
        )}
        {all.length > STEP / 2 && (
          <label class="filter">
            Filter subscriptions
            <input
              type="search"
              value={filter}
              onInput={(e) => {
                setFilter(e.currentTarget.value);
                setShown(STEP);
              }}
            />
          </label>
        )}
        {visible.length > 0 && (
          <ul class="grid podcast-grid">
            {visible.map((p) => (
              <li key={p.podcast_id}>
                <a class="podcast-tile" href={`/podcast/${p.podcast_id}`}>
                  {p.artwork_url ? <img src={imageUrl(p.artwork_url)} alt="" loading="lazy" width={160} height={160} /> : <span class="art tile-art" aria-hidden="true" />}
                  <span class="tile-title">{p.title}</span>
                  <span class="muted tile-meta">{p.episode_count.toLocaleString()} episodes</span>
                </a>
              </li>
            ))}
          </ul>
        )}
        {filter && pods.data && !matching.length && <p class="muted">No subscription matches “{filter}”.</p>}
        {matching.length > visible.length && (
          <div class="load-more">
            <p class="muted">
              Showing {visible.length.toLocaleString()} of {matching.length.toLocaleString()}
            </p>
            <button type="button" class="secondary" onClick={() => setShown((n) => n + STEP)}>
              Show more
            </button>
          </div>
        )}
      </section>
      <OpmlTools onImported={() => pods.reload()} />
    </>
  );
}
