/**
 * One queued episode: dragged to a new place (HTML5 drag and drop, with the pointer), or moved one place
 * with the arrow buttons "Move up" / "Move down" beside the drag grip (the keyboard's way, also for screen
 * readers), "Play", "Remove from queue".
 * Every button's name carries the title (visually hidden), so a list of buttons tells the episodes apart.
 */
import { imageUrl } from "../api";
import { duration } from "../ui";
import { playEpisode, progressText, type EpisodeRow } from "./episode-item";

export interface QueueItemProps {
  episode: EpisodeRow;
  index: number;
  count: number;
  dragging: boolean;
  over: boolean;
  onMove: (by: number) => void;
  onRemove: () => void;
  onDragStart: (e: DragEvent) => void;
  onDragOver: (e: DragEvent) => void;
  onDrop: (e: DragEvent) => void;
  onDragEnd: () => void;
}

export function QueueItem(p: QueueItemProps) {
  const e = p.episode;
  const art = imageUrl(e.episodeartwork);
  const facts = [e.podcastname, e.episodeduration ? duration(e.episodeduration) : "", progressText(e)].filter(Boolean);
  const id = e.episodeid;
  return (
    <li
      class={`queue-item${p.dragging ? " dragging" : ""}${p.over ? " over" : ""}`}
      draggable
      data-episode={id}
      onDragStart={p.onDragStart}
      onDragOver={p.onDragOver}
      onDrop={p.onDrop}
      onDragEnd={p.onDragEnd}
    >
      <div class="queue-move">
        <button type="button" class="secondary" id={`up-${id}`} title="Move up" disabled={p.index === 0} onClick={() => p.onMove(-1)}>
          <span aria-hidden="true">↑</span>
          <span class="visually-hidden">Move up {e.episodetitle}</span>
        </button>
        <span class="grip" aria-hidden="true" title="Drag to reorder">
          ⠿
        </span>
        <button type="button" class="secondary" id={`down-${id}`} title="Move down" disabled={p.index === p.count - 1} onClick={() => p.onMove(1)}>
          <span aria-hidden="true">↓</span>
          <span class="visually-hidden">Move down {e.episodetitle}</span>
        </button>
      </div>
      <div class="card episode-row">
        {art ? <img class="art" src={art} alt="" loading="lazy" width={56} height={56} draggable={false} /> : <span class="art" aria-hidden="true" />}
        <div class="body">
          <h2>
            <span class="visually-hidden">{p.index + 1}. </span>
            <a href={`/episode/${id}`} draggable={false}>
              {e.episodetitle}
            </a>
          </h2>
          <p class="muted meta">{facts.join(" · ")}</p>
          <div class="actions">
            <button type="button" class="secondary" onClick={() => playEpisode(e)}>
              Play<span class="visually-hidden"> {e.episodetitle}</span>
            </button>
            <button type="button" class="danger" id={`remove-${id}`} onClick={p.onRemove}>
              Remove from queue<span class="visually-hidden"> {e.episodetitle}</span>
            </button>
          </div>
        </div>
      </div>
    </li>
  );
}
