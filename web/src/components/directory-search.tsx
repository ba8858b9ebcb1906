/**
 * The podcast directory through this server (proxy_search, which asks the search service): results of either
 * index read into one shape, each with "Subscribe" (add_podcast with what the directory knows of it).
 */
import { useState } from "preact/hooks";
import { api, errorText, imageUrl, ok } from "../api";
import { me } from "../session";
import { ErrorNote, Loading, useAction } from "../ui";

interface Found {
  key: string;
  title: string;
  feed_url: string;
  author: string;
  description: string;
  artwork: string | null;
  index_id: number | null;
}

type Answer = Awaited<ReturnType<typeof search>>;

function search(query: string, index: string) {
  return ok(api.GET("/api/data/proxy_search", { params: { query: { query, index } } }));
}

/** Directory descriptions are often HTML: shown as text, tags dropped, shortened. */
function plain(text: string | null | undefined): string {
  const t = (text ?? "")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return t.length > 240 ? `${t.slice(0, 239)}…` : t;
}

function readAnswer(a: Answer): Found[] {
  if ("feeds" in a) {
    return a.feeds
      .filter((f) => f.url)
      .map((f) => ({
        key: `d${f.id}`,
        title: f.title || f.url!,
        feed_url: f.url!,
        author: f.author || f.ownerName || "",
        description: plain(f.description),
        artwork: f.artwork || f.image || null,
        index_id: f.id || null,
      }));
  }
  if ("resultCount" in a) {
    return a.results
      .filter((r) => r.feedUrl)
      .map((r, i) => ({
        key: `s${r.collectionId ?? i}`,
        title: r.trackName || r.feedUrl!,
        feed_url: r.feedUrl!,
        author: r.artistName || "",
        description: "",
        artwork: r.artworkUrl100 || null,
        index_id: null,
      }));
  }
  return [];
}

function Result({ found: f, n }: { found: Found; n: number }) {
  const sub = useAction();
  const [added, setAdded] = useState<number | null>(null);
  const titleId = `found-${n}`;
  const subscribe = () =>
    !sub.busy &&
    sub.run(async () => {
      const res = await ok(
        api.POST("/api/data/add_podcast", {
          body: {
            podcast_values: {
              pod_feed_url: f.feed_url,
              user_id: me().user_id,
              pod_title: f.title,
              pod_author: f.author || undefined,
              pod_artwork: f.artwork ?? undefined,
              pod_description: f.description || undefined,
            },
            podcast_index_id: f.index_id,
          },
        }),
      );
      setAdded(res.podcast_id);
    });
  return (
    <li class="card">
      {f.artwork ? <img class="art" src={imageUrl(f.artwork)} alt="" loading="lazy" width={64} height={64} /> : <span class="art" aria-hidden="true" />}
      <div class="body">
        <h3 id={titleId}>{f.title}</h3>
        {f.author && <p class="muted">{f.author}</p>}
        {f.description && <p class="found-description">{f.description}</p>}
        <div class="actions">
          {added ? (
            <a class="button secondary" href={`/podcast/${added}`} aria-describedby={titleId}>
              Subscribed: open
            </a>
          ) : (
            <button type="button" onClick={() => void subscribe()} aria-describedby={titleId}>
              Subscribe
            </button>
          )}
        </div>
        <ErrorNote error={sub.error} />
      </div>
    </li>
  );
}

export function DirectorySearch() {
  const [query, setQuery] = useState("");
  const [index, setIndex] = useState("podcast_index");
  const [state, setState] = useState<{ loading: boolean; error: string | null; results: Found[] | null; asked: string }>({
    loading: false,
    error: null,
    results: null,
    asked: "",
  });
  const submit = async (ev: Event) => {
    ev.preventDefault();
    const q = query.trim();
    if (!q) return;
    setState({ loading: true, error: null, results: null, asked: q });
    try {
      const results = readAnswer(await search(q, index));
      setState({ loading: false, error: null, results, asked: q });
    } catch (err) {
      setState({ loading: false, error: errorText(err), results: null, asked: q });
    }
  };
  return (
    <section aria-labelledby="directory-h">
      <h2 id="directory-h">Find new podcasts</h2>
      <form class="search-form" role="search" aria-label="Directory search" onSubmit={(e) => void submit(e)}>
        <label>
          Search podcasts
          <input type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </label>
        <label>
          Directory
          <select value={index} onChange={(e) => setIndex(e.currentTarget.value)}>
            <option value="podcast_index">Podcast Index</option>
            <option value="itunes">Apple Podcasts</option>
          </select>
        </label>
        <button type="submit">Search</button>
      </form>
      {state.loading && <Loading what="results" />}
      <ErrorNote error={state.error} />
      <p class="muted" role="status">
        {state.results && (state.results.length ? `${state.results.length} podcasts found for “${state.asked}”.` : `Nothing found for “${state.asked}”.`)}
      </p>
      {state.results && state.results.length > 0 && (
        <ul class="list">
          {state.results.map((f, n) => (
            <Result key={f.key} found={f} n={n} />
          ))}
        </ul>
      )}
    </section>
  );
}
