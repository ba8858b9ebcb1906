/**
 * Downloads: the tasks working now with their live progress (over the tasks WebSocket), and the episodes
 * downloaded to this server, by podcast, a page at a time, each with "Delete download" (the file goes; the
 * episode stays and streams from its feed again).
 */
import { useState } from "preact/hooks";
import { api, errorText, ok, type paths } from "../api";
import { me } from "../session";
import { ErrorNote, Loading, PageTitle } from "../ui";
import { usePaged } from "../components/paged";
import { EpisodeItem, LoadMore } from "../components/episode-item";
import { TaskList, useTaskSocket, type Task } from "../components/download-tasks";

type Summary = paths["/api/data/podcast_download_summary/{user_id}"]["get"]["responses"][200]["content"]["application/json"]["podcasts"][number];

const PODCASTS_PAGE = 20;
const EPISODES_PAGE = 10;

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toLocaleString(undefined, { maximumFractionDigits: 1 })} MB`;
}

export default function Downloads() {
  const { user_id, key } = me();
  // Bumped when a download finishes: the lists below read the server again.
  const [version, setVersion] = useState(0);
  const onUpdate = (t: Task) => t.status === "SUCCESS" && t.task_type.includes("download") && setVersion((v) => v + 1);
  const { tasks, live } = useTaskSocket(user_id, key, onUpdate);
  const podcasts = usePaged(
    async (offset, limit) => {
      // The summary has no total: one more than a page tells whether there is more.
      const r = await ok(
        api.GET("/api/data/podcast_download_summary/{user_id}", {
          params: { path: { user_id }, query: { offset, limit: limit + 1, sort_by: "latest_download", sort_order: "desc" } },
        }),
      );
      return { items: r.podcasts.slice(0, limit), total: offset + r.podcasts.length };
    },
    PODCASTS_PAGE,
    [user_id, version],
  );
  return (
    <>
      <PageTitle title="Downloads">Downloads</PageTitle>
      <section aria-labelledby="tasks-h">
        <h2 id="tasks-h">Tasks</h2>
        <TaskList tasks={tasks} live={live} />
      </section>
      <section aria-labelledby="files-h">
        <h2 id="files-h">Downloaded episodes</h2>
        <ErrorNote error={podcasts.error} />
        {podcasts.loading && !podcasts.items.length ? (
          <Loading what="downloads" />
        ) : !podcasts.error && !podcasts.items.length ? (
          <p class="muted">No episode is downloaded to this server. “Download” on an episode keeps its file here.</p>
        ) : (
          <>
            {podcasts.items.map((p) => (
              <DownloadedPodcast key={p.podcastid} podcast={p} version={version} />
            ))}
            {podcasts.hasMore && (
              <button type="button" class="secondary" onClick={podcasts.more}>
                More podcasts
              </button>
            )}
          </>
        )}
      </section>
    </>
  );
}

function DownloadedPodcast({ podcast: p, version }: { podcast: Summary; version: number }) {
  const { user_id } = me();
  const list = usePaged(
    async (offset, limit) => {
      const r = await ok(
        api.GET("/api/data/podcast_downloads_paged/{user_id}/{podcast_id}", {
          params: { path: { user_id, podcast_id: p.podcastid }, query: { offset, limit, sort_by: "downloaded_at", sort_order: "desc" } },
        }),
      );
      return { items: r.episodes, total: r.total };
    },
    EPISODES_PAGE,
    [user_id, p.podcastid, version],
  );
  const [deleted, setDeleted] = useState<Set<number>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [said, say] = useState("");
  const shown = list.items.filter((e) => !deleted.has(e.episodeid));

  const remove = async (episode_id: number, title: string, is_vidsite: boolean) => {
    setError(null);
    try {
      await ok(api.POST("/api/data/delete_episode", { body: { episode_id, user_id, is_vidsite } }));
      setDeleted(new Set(deleted).add(episode_id));
      say(`The download of ${title} was deleted.`);
      document.getElementById(`dl-${p.podcastid}`)?.focus();
    } catch (err) {
      setError(`The download of ${title} was not deleted: ${errorText(err)}`);
    }
  };

  return (
    <section class="download-group" aria-labelledby={`dl-${p.podcastid}`}>
      <h3 id={`dl-${p.podcastid}`} tabIndex={-1}>
        <a href={`/podcast/${p.podcastid}`}>{p.podcastname}</a>
      </h3>
      <p class="muted meta">
        {p.episode_count - deleted.size} {p.episode_count - deleted.size === 1 ? "episode" : "episodes"} · {megabytes(p.total_size)}
      </p>
      <p role="status" class="visually-hidden">
        {said}
      </p>
      <ErrorNote error={list.error ?? error} />
      {list.loading && !list.items.length ? (
        <Loading what="episodes" />
      ) : (
        <>
          <ul class="list">
            {shown.map((e) => (
              <EpisodeItem key={e.episodeid} episode={e} showPodcast={false}>
                <span class="muted">{megabytes(e.downloaded_size)}</span>
                <button type="button" class="danger" onClick={() => void remove(e.episodeid, e.episodetitle, e.is_vidsite)}>
                  Delete download<span class="visually-hidden"> {e.episodetitle}</span>
                </button>
              </EpisodeItem>
            ))}
          </ul>
          {list.hasMore && (
            <LoadMore shown={shown.length} total={list.total - deleted.size} what="episodes" loading={list.loading} hasMore={list.hasMore} more={list.more} />
          )}
        </>
      )}
    </section>
  );
}
