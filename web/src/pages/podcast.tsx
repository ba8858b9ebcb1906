/**
 * A podcast: title, artwork, description; "Subscribe" / "Unsubscribe"; its settings while subscribed; its
 * episodes paged and searchable. An admin may open a podcast they are not subscribed to (get_podcast_details
 * answers them); after unsubscribing, the page keeps what it showed so that "Subscribe" can undo it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, imageUrl, ok } from "../api";
import { navigate } from "../router";
import { me } from "../session";
import { ErrorNote, Loading, PageTitle, useAction, useLoad } from "../ui";
import { ShowNotes } from "../components/show-notes";
import { PodcastSettings } from "../components/podcast-settings";
import { PodcastRetention } from "../components/retention-settings";
import { PodcastEpisodes } from "../components/podcast-episodes";
import { PodcastFilters } from "../components/podcast-filters";

export default function Podcast({ params }: { params: { id: string } }) {
  const podcast_id = Number(params.id);
  const user_id = me().user_id;
  const valid = Number.isInteger(podcast_id) && podcast_id > 0;
  const details = useLoad(
    () =>
      valid
        ? ok(api.GET("/api/data/get_podcast_details", { params: { query: { user_id, podcast_id } } }))
        : Promise.reject(new Error("There is no podcast at this address.")),
    [user_id, podcast_id],
  );
  const [subscribed, setSubscribed] = useState<boolean | null>(null);
  const [confirming, setConfirming] = useState(false);
  const change = useAction();
  // The button that replaces the one just pressed takes the focus (the pressed one is gone).
  const toggleButton = useRef<HTMLButtonElement>(null);
  const [moveFocus, setMoveFocus] = useState(false);
  useEffect(() => {
    if (moveFocus) toggleButton.current?.focus();
    setMoveFocus(false);
  }, [moveFocus, subscribed]);
  const p = details.data?.podcast;
  useEffect(() => {
    if (p) setSubscribed(!!p.subscribed_date);
  }, [p]);

  if (!p) {
    return (
      <>
        <PageTitle title="Podcast">Podcast</PageTitle>
        <ErrorNote error={details.error} />
        {details.loading && <Loading what="the podcast" />}
      </>
    );
  }

  const unsubscribe = () =>
    change.run(async () => {
      await ok(api.POST("/api/data/remove_podcast_id", { body: { user_id, podcast_id } }));
      setConfirming(false);
      setSubscribed(false);
      setMoveFocus(true);
    });
  const subscribe = () =>
    change.run(async () => {
      const res = await ok(
        api.POST("/api/data/add_podcast", {
          body: { podcast_values: { pod_feed_url: p.feed_url, user_id, pod_title: p.title, pod_artwork: p.artwork_url ?? undefined } },
        }),
      );
      setSubscribed(true);
      setMoveFocus(true);
      // The same feed keeps its podcast id; should it not, the page follows.
      if (res.podcast_id !== podcast_id) navigate(`/podcast/${res.podcast_id}`, true);
      else void details.reload();
    });

  const art = imageUrl(p.artwork_url);
  return (
    <>
      <div class="podcast-head">
        {art && <img class="podcast-art" src={art} alt={`Artwork of ${p.title}`} width={160} height={160} />}
        <div class="podcast-info">
          <PageTitle title={p.title}>{p.title}</PageTitle>
          {p.author && <p class="muted">{p.author}</p>}
          <p class="muted">
            {p.total_episodes.toLocaleString()} episodes
            {p.website_url && /^https?:/i.test(p.website_url) && (
              <>
                {" · "}
                <a href={p.website_url} target="_blank" rel="noopener noreferrer">
                  Website
                </a>
              </>
            )}
          </p>
          <div class="actions">
            {subscribed ? (
              <button ref={toggleButton} type="button" class="secondary" aria-expanded={confirming} onClick={() => setConfirming(!confirming)}>
                Unsubscribe
              </button>
            ) : (
              <button ref={toggleButton} type="button" onClick={() => !change.busy && void subscribe()}>
                Subscribe
              </button>
            )}
          </div>
          {subscribed && confirming && (
            <div class="confirm" role="group" aria-labelledby="confirm-text">
              <p id="confirm-text">Unsubscribing also removes this podcast's episodes from your queue, history and saved episodes.</p>
              <div class="actions">
                <button type="button" class="danger" onClick={() => !change.busy && void unsubscribe()}>
                  Confirm unsubscribe
                </button>
                <button type="button" class="secondary" onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </div>
            </div>
          )}
          <p role="status" class="muted">
            {subscribed === false ? "You are not subscribed to this podcast." : ""}
          </p>
          <ErrorNote error={change.error} />
        </div>
      </div>
      {p.description && (
        <section aria-labelledby="about-h">
          <h2 id="about-h">About</h2>
          <ShowNotes html={p.description} />
        </section>
      )}
      {subscribed && <PodcastSettings key={podcast_id} podcastId={podcast_id} />}
      {subscribed && <PodcastRetention key={podcast_id} podcastId={podcast_id} />}
      {subscribed && <PodcastFilters key={podcast_id} podcastId={podcast_id} />}
      <PodcastEpisodes podcastId={podcast_id} />
    </>
  );
}
