/**
 * An episode: title, podcast, date, duration; "Play" and the buttons that change its state on the server
 * (queue, save, download, played), each naming what it will do now; the show notes (sanitized); chapters
 * and transcript when the feed has them.
 */
import { useEffect, useState } from "preact/hooks";
import { api, imageUrl, ok } from "../api";
import { me } from "../session";
import { duration, ErrorNote, Loading, Outcome, PageTitle, shortDate, useAction, useLoad } from "../ui";
import { ShowNotes } from "../components/show-notes";
import { playEpisode, progressText } from "../components/episode-item";
import { Chapters, Transcript } from "../components/episode-extras";
import { EpisodeBookmarks } from "../components/bookmarks";

interface State {
  queued: boolean;
  saved: boolean;
  downloaded: boolean;
  completed: boolean;
}

export default function Episode({ params }: { params: { id: string } }) {
  const episode_id = Number(params.id);
  const user_id = me().user_id;
  const valid = Number.isInteger(episode_id) && episode_id > 0;
  const meta = useLoad(
    () =>
      valid
        ? ok(api.POST("/api/data/get_episode_metadata", { body: { episode_id, user_id } }))
        : Promise.reject(new Error("There is no episode at this address.")),
    [episode_id, user_id],
  );
  const e = meta.data?.episode;
  const [state, setState] = useState<State | null>(null);
  const act = useAction();
  useEffect(() => {
    if (e) setState({ queued: e.is_queued, saved: e.is_saved, downloaded: e.is_downloaded, completed: e.completed });
  }, [e]);

  if (!e || !state) {
    return (
      <>
        <PageTitle title="Episode">Episode</PageTitle>
        <ErrorNote error={meta.error} />
        {meta.loading && <Loading what="the episode" />}
      </>
    );
  }

  const body = { episode_id, user_id, is_vidsite: e.is_vidsite };
  // Buttons stay enabled (a disabled one would drop the keyboard focus); a second press meanwhile does nothing.
  const toggle = (key: keyof State, done: string, call: () => Promise<unknown>) => {
    if (act.busy) return;
    void act.run(async () => {
      await call();
      setState((s) => (s ? { ...s, [key]: !s[key] } : s));
      return done;
    });
  };
  const download = () => {
    if (act.busy) return;
    void act.run(async () => {
      // The file arrives through a background task; the Downloads page follows it.
      const r = await ok(api.POST("/api/data/download_podcast", { body }));
      return r.task_id ? "Downloading in the background." : r.detail;
    });
  };
  const row = { ...e, completed: state.completed, is_vidsite: e.is_vidsite || e.is_video };
  const art = imageUrl(e.episodeartwork);
  const left = progressText(row);

  return (
    <article class="episode-page">
      <div class="podcast-head">
        {art && <img class="podcast-art" src={art} alt="" width={160} height={160} />}
        <div class="podcast-info">
          <PageTitle title={e.episodetitle}>{e.episodetitle}</PageTitle>
          <p>
            <a href={`/podcast/${e.podcastid}`}>{e.podcastname}</a>
          </p>
          <p class="muted">{[shortDate(e.episodepubdate), e.episodeduration ? duration(e.episodeduration) : "", left].filter(Boolean).join(" · ")}</p>
        </div>
      </div>
      <div class="actions episode-buttons">
        <button type="button" onClick={() => playEpisode(row)}>
          Play
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            state.queued
              ? toggle("queued", "Removed from the queue.", () => ok(api.POST("/api/data/remove_queued_pod", { body })))
              : toggle("queued", "Added to the queue.", () => ok(api.POST("/api/data/queue_pod", { body })))
          }
        >
          {state.queued ? "Remove from queue" : "Add to queue"}
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            state.saved
              ? toggle("saved", "Removed from saved episodes.", () => ok(api.POST("/api/data/remove_saved_episode", { body })))
              : toggle("saved", "Saved.", () => ok(api.POST("/api/data/save_episode", { body })))
          }
        >
          {state.saved ? "Unsave" : "Save"}
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            state.downloaded ? toggle("downloaded", "The downloaded file was deleted.", () => ok(api.POST("/api/data/delete_episode", { body }))) : download()
          }
        >
          {state.downloaded ? "Delete download" : "Download"}
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            state.completed
              ? toggle("completed", "Marked as unplayed.", () => ok(api.POST("/api/data/mark_episode_uncompleted", { body })))
              : toggle("completed", "Marked as played.", () => ok(api.POST("/api/data/mark_episode_completed", { body })))
          }
        >
          {state.completed ? "Mark as unplayed" : "Mark as played"}
        </button>
      </div>
      <Outcome of={act} />
      <section aria-labelledby="notes-h">
        <h2 id="notes-h">Show notes</h2>
        {e.episodedescription ? <ShowNotes html={e.episodedescription} /> : <p class="muted">This episode has no show notes.</p>}
      </section>
      <Chapters episode={row} />
      <EpisodeBookmarks episode={row} />
      <Transcript episodeId={episode_id} />
    </article>
  );
}
