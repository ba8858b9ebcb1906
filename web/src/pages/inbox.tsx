/**
 * The inbox (GET /api/data/inbox): episodes published since the person subscribed that they have not played,
 * queued, saved, downloaded or dismissed, newest first, 50 at a time. Each plays, goes to the queue ("Add to
 * queue") or leaves with "Dismiss"; "Dismiss all" takes one podcast's whole inbox out. What leaves is hidden
 * at once and the navigation's count follows.
 */
import { useState } from "preact/hooks";
import { api, errorText, ok } from "../api";
import { me } from "../session";
import { ErrorNote, Loading, PageTitle } from "../ui";
import { usePaged } from "../components/paged";
import { EpisodeItem, LoadMore } from "../components/episode-item";
import { refreshInboxCount } from "../components/inbox-count";

const PAGE = 50;

export default function Inbox() {
  const { user_id } = me();
  const [removed, setRemoved] = useState<Set<number>>(new Set());
  // Bumped to read the list again from its start (after "Dismiss all").
  const [round, setRound] = useState(0);
  const list = usePaged(
    async (offset, limit) => {
      // What was taken out here left the server's list too: the next page starts that much earlier.
      const r = await ok(api.GET("/api/data/inbox", { params: { query: { user_id, offset: offset && Math.max(0, offset - removed.size), limit } } }));
      return { items: r.episodes, total: r.total + removed.size };
    },
    PAGE,
    [user_id, round],
  );
  const [error, setError] = useState<string | null>(null);
  const [said, say] = useState("");
  const shown = list.items.filter((e) => !removed.has(e.episodeid));
  // The podcasts of the episodes shown, in their order, for "Dismiss all".
  const podcasts = [...new Map(shown.map((e) => [e.podcastid, e.podcastname])).entries()];

  const act = async (what: string, fn: () => Promise<unknown>, done: string, gone: number[] | null) => {
    setError(null);
    try {
      await fn();
      // One podcast's whole inbox went, beyond the pages shown: read the list again.
      if (gone) setRemoved(new Set([...removed, ...gone]));
      else {
        setRemoved(new Set());
        setRound(round + 1);
      }
      say(done);
      refreshInboxCount();
      document.querySelector<HTMLElement>("h1")?.focus();
    } catch (err) {
      setError(`${what}: ${errorText(err)}`);
    }
  };
  const queue = (id: number, title: string) =>
    act(
      `${title} was not queued`,
      () => ok(api.POST("/api/data/queue_pod", { body: { episode_id: id, user_id, is_vidsite: false } })),
      `${title} added to the queue.`,
      [id],
    );
  const dismiss = (id: number, title: string) =>
    act(`${title} was not dismissed`, () => ok(api.POST("/api/data/inbox/dismiss", { body: { user_id, episode_ids: [id] } })), `${title} dismissed.`, [id]);
  const dismissAll = (podcast_id: number, name: string) =>
    act(
      `${name} was not dismissed`,
      () => ok(api.POST("/api/data/inbox/dismiss", { body: { user_id, podcast_id } })),
      `Every new episode of ${name} dismissed.`,
      null,
    );

  return (
    <>
      <PageTitle title="Inbox">Inbox</PageTitle>
      <p class="muted">New episodes since you subscribed. Playing, queueing, saving or downloading one takes it out of here.</p>
      <p role="status" class="visually-hidden">
        {said}
      </p>
      <ErrorNote error={list.error ?? error} />
      {list.loading && !list.items.length ? (
        <Loading what="the inbox" />
      ) : !list.error && !shown.length ? (
        <p class="muted">Nothing new. Episodes published after you subscribe to a podcast arrive here.</p>
      ) : (
        <>
          <section aria-labelledby="inbox-podcasts-h">
            <h2 id="inbox-podcasts-h">By podcast</h2>
            <ul class="inbox-podcasts">
              {podcasts.map(([id, name]) => (
                <li key={id}>
                  <a href={`/podcast/${id}`}>{name}</a>
                  <button type="button" class="secondary" onClick={() => void dismissAll(id, name)}>
                    Dismiss all<span class="visually-hidden"> of {name}</span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
          <h2>New episodes</h2>
          <ul class="list">
            {shown.map((e) => (
              <EpisodeItem key={e.episodeid} episode={e}>
                <button type="button" class="secondary" onClick={() => void queue(e.episodeid, e.episodetitle)}>
                  Add to queue<span class="visually-hidden"> {e.episodetitle}</span>
                </button>
                <button type="button" class="secondary" onClick={() => void dismiss(e.episodeid, e.episodetitle)}>
                  Dismiss<span class="visually-hidden"> {e.episodetitle}</span>
                </button>
              </EpisodeItem>
            ))}
          </ul>
          <LoadMore shown={shown.length} total={list.total - removed.size} what="new episodes" loading={list.loading} hasMore={list.hasMore} more={list.more} />
        </>
      )}
    </>
  );
}
