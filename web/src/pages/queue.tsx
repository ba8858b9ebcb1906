/**
 * The queue: the episodes in the order they will play (the player starts the next one when one ends).
 * Reordered by dragging or with "Move up"/"Move down"; each change is written at once (reorder_queue, which
 * takes the whole order), one write at a time so that a later order never loses to an earlier one.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, errorText, ok, type paths } from "../api";
import { me } from "../session";
import { duration, ErrorNote, Loading, PageTitle, useLoad } from "../ui";
import { queueVersion } from "../player/events";
import { QueueItem } from "../components/queue-item";

type Queued = paths["/api/data/get_queued_episodes"]["get"]["responses"][200]["content"]["application/json"]["data"][number];

export default function Queue() {
  const { user_id } = me();
  const loaded = useLoad(() => ok(api.GET("/api/data/get_queued_episodes", { params: { query: { user_id } } })), [user_id, queueVersion.value]);
  const [items, setItems] = useState<Queued[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [said, say] = useState("");
  const [drag, setDrag] = useState<{ id: number | null; over: number | null }>({ id: null, over: null });
  const focusNext = useRef<string[] | null>(null);
  const writing = useRef({ busy: false, dirty: false, order: [] as number[] });

  useEffect(() => {
    if (loaded.data) setItems(loaded.data.data);
  }, [loaded.data]);

  // After a move or removal, focus goes to the control the person used (or the nearest one still there), in the same
  // commit as the new order: a key pressed right after lands on that control, never on the one focused before.
  useLayoutEffect(() => {
    const ids = focusNext.current;
    if (!ids) return;
    focusNext.current = null;
    for (const id of ids) {
      const node = id === "h1" ? document.querySelector<HTMLElement>("h1") : (document.getElementById(id) as HTMLButtonElement | null);
      if (node && !(node as HTMLButtonElement).disabled) return node.focus();
    }
  });

  const saveOrder = async () => {
    const w = writing.current;
    w.dirty = true;
    if (w.busy) return;
    w.busy = true;
    try {
      while (w.dirty) {
        w.dirty = false;
        await ok(api.POST("/api/data/reorder_queue", { body: { user_id, episode_ids: w.order } }));
      }
    } catch (err) {
      setError(`The new order was not saved: ${errorText(err)}`);
      void loaded.reload();
    } finally {
      w.busy = false;
    }
  };

  const move = (from: number, to: number, focus?: string[]) => {
    if (from === to || to < 0 || to >= items.length) return;
    const next = items.slice();
    const [moved] = next.splice(from, 1);
    next.splice(to, 0, moved);
    setItems(next);
    setError(null);
    writing.current.order = next.map((e) => e.episodeid);
    focusNext.current = focus ?? null;
    say(`${moved.episodetitle} moved to position ${to + 1} of ${next.length}.`);
    void saveOrder();
  };

  const remove = async (at: number) => {
    const ep = items[at];
    setError(null);
    try {
      await ok(api.POST("/api/data/remove_queued_pod", { body: { episode_id: ep.episodeid, user_id, is_vidsite: ep.is_vidsite } }));
    } catch (err) {
      setError(`${ep.episodetitle} was not removed: ${errorText(err)}`);
      return;
    }
    const next = items.filter((e) => e.episodeid !== ep.episodeid);
    setItems(next);
    writing.current.order = next.map((e) => e.episodeid);
    const near = next[at] ?? next[at - 1];
    focusNext.current = near ? [`remove-${near.episodeid}`] : ["h1"];
    say(`${ep.episodetitle} removed from the queue.`);
  };

  const total = items.reduce((sum, e) => sum + (e.completed ? 0 : Math.max(0, e.episodeduration - (e.listenduration ?? 0))), 0);
  return (
    <>
      <PageTitle title="Queue">Queue</PageTitle>
      <p role="status" class="visually-hidden">
        {said}
      </p>
      <ErrorNote error={loaded.error ?? error} />
      {loaded.loading && !loaded.data ? (
        <Loading what="the queue" />
      ) : loaded.data && !items.length ? (
        <p class="muted">The queue is empty. Add episodes with “Add to queue” on an episode, and they play here one after another.</p>
      ) : items.length ? (
        <>
          <p class="muted">
            {items.length} {items.length === 1 ? "episode" : "episodes"}, {duration(total)} left to hear. Drag an episode, or use “Move up” and “Move down”, to
            change the order.
          </p>
          <ol class="list">
            {items.map((e, i) => (
              <QueueItem
                key={e.episodeid}
                episode={e}
                index={i}
                count={items.length}
                dragging={drag.id === e.episodeid}
                over={drag.over === e.episodeid && drag.id !== e.episodeid}
                onMove={(by) => move(i, i + by, by < 0 ? [`up-${e.episodeid}`, `down-${e.episodeid}`] : [`down-${e.episodeid}`, `up-${e.episodeid}`])}
                onRemove={() => void remove(i)}
                onDragStart={(ev) => {
                  ev.dataTransfer?.setData("text/plain", String(e.episodeid));
                  if (ev.dataTransfer) ev.dataTransfer.effectAllowed = "move";
                  setDrag({ id: e.episodeid, over: null });
                }}
                onDragOver={(ev) => {
                  // Only our own items drop here (not files or text from elsewhere).
                  if (drag.id === null) return;
                  ev.preventDefault();
                  if (ev.dataTransfer) ev.dataTransfer.dropEffect = "move";
                  if (drag.over !== e.episodeid) setDrag({ ...drag, over: e.episodeid });
                }}
                onDrop={(ev) => {
                  ev.preventDefault();
                  const from = items.findIndex((x) => x.episodeid === drag.id);
                  setDrag({ id: null, over: null });
                  if (from >= 0) move(from, i);
                }}
                onDragEnd={() => setDrag({ id: null, over: null })}
              />
            ))}
          </ol>
        </>
      ) : null}
    </>
  );
}
