/**
 * The player's bookmarks (inside the region "Player"): "Add bookmark" saves the position playing now with an
 * optional note; the episode's bookmarks below, each a button that seeks there. Folded by default, and read
 * only when opened, so that loading an episode costs no request more.
 */
import { useState } from "preact/hooks";
import { api, ok } from "../api";
import { me } from "../session";
import { duration, ErrorNote, Outcome, useAction, useLoad } from "../ui";
import { seek, view } from "../player/controller";
import { bookmarksVersion, changeBookmarks, episodeBookmarks } from "./bookmarks";

export function PlayerBookmarks({ episodeId }: { episodeId: number }) {
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState("");
  const act = useAction();
  const list = useLoad(() => (open ? episodeBookmarks(episodeId) : Promise.resolve(null)), [open, episodeId, bookmarksVersion.value]);
  const add = (e: Event) => {
    e.preventDefault();
    const position = Math.round(view.time.value * 10) / 10;
    changeBookmarks(act, `Bookmark added at ${duration(position)}.`, async () => {
      await ok(api.POST("/api/data/bookmarks", { body: { user_id: me().user_id, episode_id: episodeId, position, note: note.trim() } }));
      setNote("");
    });
  };
  const marks = list.data?.bookmarks ?? [];
  return (
    <details class="player-bookmarks" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Bookmarks</summary>
      <form class="player-bookmark-add" onSubmit={add}>
        <label>
          Bookmark note (optional)
          <input type="text" maxLength={2000} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={!view.ready.value}>
          Add bookmark
        </button>
      </form>
      <Outcome of={act} />
      <ErrorNote error={list.error} />
      {marks.length > 0 && (
        <ul class="player-bookmark-list" aria-label="Bookmarks of this episode">
          {marks.map((b) => (
            <li key={b.bookmark_id}>
              <button type="button" class="link" disabled={!view.ready.value} onClick={() => seek(b.position)}>
                <span class="visually-hidden">Go to </span>
                <span class="chapter-time">{duration(b.position)}</span> {b.note}
              </button>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
