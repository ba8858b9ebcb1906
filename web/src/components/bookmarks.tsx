/**
 * Bookmarks of an episode (GET/PUT/DELETE /api/data/bookmarks): the list on the episode's page, each
 * playing from its position, its note editable, deletable. The player adds them (player-bookmarks.tsx);
 * both lists load again when either changes one (bookmarksVersion).
 */
import { signal } from "@preact/signals";
import { useRef, useState } from "preact/hooks";
import { api, ok, type paths } from "../api";
import { me } from "../session";
import { duration, ErrorNote, Loading, Outcome, useAction, useLoad, type Action } from "../ui";
import { playEpisode, type EpisodeRow } from "./episode-item";

export type Bookmark = paths["/api/data/bookmarks"]["get"]["responses"]["200"]["content"]["application/json"]["bookmarks"][number];

/** Bumped whenever this page changes a bookmark: every list of them loads again. */
export const bookmarksVersion = signal(0);

/** Most bookmarks an episode's list shows (the route's page limit). */
const SHOWN = 500;

/** An episode's bookmarks, by position. */
export function episodeBookmarks(episode_id: number) {
  return ok(api.GET("/api/data/bookmarks", { params: { query: { user_id: me().user_id, episode_id, limit: SHOWN } } }));
}

/** Runs a change of a bookmark, then has every list load again. */
export function changeBookmarks(act: Action, done: string, call: () => Promise<unknown>): void {
  if (act.busy) return;
  void act.run(async () => {
    await call();
    bookmarksVersion.value++;
    return done;
  });
}

function NoteEditor({ bookmark, act, close }: { bookmark: Bookmark; act: Action; close: () => void }) {
  const [text, setText] = useState(bookmark.note);
  const id = `bookmark-note-${bookmark.bookmark_id}`;
  const save = (e: Event) => {
    e.preventDefault();
    changeBookmarks(act, "Note saved.", async () => {
      await ok(api.PUT("/api/data/bookmarks/{bookmark_id}", { params: { path: { bookmark_id: bookmark.bookmark_id } }, body: { note: text } }));
      close();
    });
  };
  return (
    <form class="stack bookmark-edit" onSubmit={save}>
      <label for={id}>Note for {duration(bookmark.position)}</label>
      <textarea id={id} rows={3} maxLength={2000} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      <div class="actions">
        <button type="submit">Save note</button>
        <button type="button" class="secondary" onClick={close}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The episode page's section: its bookmarks, each playing from its position, with its note to edit and "Delete". */
export function EpisodeBookmarks({ episode }: { episode: EpisodeRow }) {
  const list = useLoad(() => episodeBookmarks(episode.episodeid), [episode.episodeid, bookmarksVersion.value]);
  const [editing, setEditing] = useState<number | null>(null);
  const act = useAction();
  // A deleted bookmark's button goes with it: the keyboard focus goes to the heading, not to the page's start.
  const heading = useRef<HTMLHeadingElement>(null);
  const marks = list.data?.bookmarks ?? [];
  return (
    <section aria-labelledby="bookmarks-h">
      <h2 id="bookmarks-h" tabIndex={-1} ref={heading}>
        Bookmarks
      </h2>
      <ErrorNote error={list.error} />
      {list.loading && !list.data && <Loading what="the bookmarks" />}
      {list.data && !marks.length && <p class="muted">No bookmarks yet: add one from the player while the episode plays.</p>}
      <ol class="list bookmarks">
        {marks.map((b) => {
          const at = duration(b.position);
          return (
            <li key={b.bookmark_id} class="card bookmark">
              <div class="body">
                <button type="button" class="secondary" onClick={() => playEpisode(episode, b.position)}>
                  Play from {at}
                </button>
                {editing === b.bookmark_id ? (
                  <NoteEditor bookmark={b} act={act} close={() => setEditing(null)} />
                ) : (
                  <>
                    {b.note ? <p class="notes plain bookmark-note">{b.note}</p> : <p class="muted bookmark-note">No note</p>}
                    <div class="actions">
                      <button type="button" class="secondary" onClick={() => setEditing(b.bookmark_id)}>
                        Edit note<span class="visually-hidden"> of the bookmark at {at}</span>
                      </button>
                      <button
                        type="button"
                        class="danger"
                        onClick={() =>
                          changeBookmarks(act, `The bookmark at ${at} was deleted.`, async () => {
                            await ok(api.DELETE("/api/data/bookmarks/{bookmark_id}", { params: { path: { bookmark_id: b.bookmark_id } } }));
                            heading.current?.focus();
                          })
                        }
                      >
                        Delete<span class="visually-hidden"> the bookmark at {at}</span>
                      </button>
                    </div>
                  </>
                )}
              </div>
            </li>
          );
        })}
      </ol>
      {list.data && list.data.total > marks.length && (
        <p class="muted">
          The first {marks.length} of {list.data.total} bookmarks.
        </p>
      )}
      <Outcome of={act} />
    </section>
  );
}
