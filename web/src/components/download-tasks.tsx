/**
 * The person's background tasks (downloads first of all) with their progress as it happens: the tasks
 * WebSocket /ws/api/tasks/{user_id} sends an `initial` list, then an `update` per change. The only request of
 * the app outside the API client: a browser's WebSocket cannot send the Api-Key header, so the key goes in
 * the address's api_key (as the server expects). Reconnects after a break, waiting longer each time.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { paths } from "../api";
import { shortDate } from "../ui";

export type Task = paths["/api/tasks/user/{user_id}"]["get"]["responses"][200]["content"]["application/json"][number];

/** Finished tasks beyond these many are not shown (the server keeps its own history of them). */
const SHOWN = 20;

type Message = { event?: string; type?: string; tasks?: Task[]; task?: Task };

export function useTaskSocket(user_id: number, key: string, onUpdate: (task: Task) => void): { tasks: Task[]; live: boolean } {
  const [tasks, setTasks] = useState<Map<string, Task>>(new Map());
  const [live, setLive] = useState(false);
  const latest = useRef(onUpdate);
  latest.current = onUpdate;

  useEffect(() => {
    let ws: WebSocket | null = null;
    let stopped = false;
    let wait = 1000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const connect = () => {
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      const socket = new WebSocket(`${scheme}://${location.host}/ws/api/tasks/${user_id}?${new URLSearchParams({ api_key: key })}`);
      ws = socket;
      socket.onopen = () => {
        wait = 1000;
        setLive(true);
      };
      socket.onmessage = (m) => {
        let msg: Message;
        try {
          msg = JSON.parse(String(m.data)) as Message;
        } catch {
          return;
        }
        const kind = msg.event ?? msg.type;
        if (kind === "initial" && Array.isArray(msg.tasks)) setTasks(new Map(msg.tasks.map((t) => [t.id, t])));
        else if (kind === "update" && msg.task) {
          const t = msg.task;
          setTasks((old) => new Map(old).set(t.id, t));
          latest.current(t);
        }
      };
      socket.onclose = () => {
        setLive(false);
        if (stopped) return;
        timer = setTimeout(connect, wait);
        wait = Math.min(wait * 2, 30_000);
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      // Closing a socket still connecting makes the browser log an error: close it once it is open.
      if (ws?.readyState === WebSocket.CONNECTING) ws.onopen = () => ws?.close();
      else ws?.close();
    };
  }, [user_id, key]);

  const all = [...tasks.values()];
  const running = all.filter((t) => t.status !== "SUCCESS" && t.status !== "FAILED");
  const done = all
    .filter((t) => t.status === "SUCCESS" || t.status === "FAILED")
    .sort((a, b) => b.updated_at.localeCompare(a.updated_at))
    .slice(0, SHOWN);
  return { tasks: [...running.sort((a, b) => a.created_at.localeCompare(b.created_at)), ...done], live };
}

function what(t: Task): string {
  if (t.episode_title) return t.episode_title;
  if (t.podcast_name) return t.podcast_name;
  return t.task_type.replace(/_/g, " ");
}

function statusText(t: Task): string {
  const p = Math.round(t.progress);
  switch (t.status) {
    case "PENDING":
      return "Waiting to start";
    case "DOWNLOADING":
      return `Downloading: ${p}%`;
    case "RUNNING":
      return `Running: ${p}%`;
    case "SUCCESS":
      return t.task_type.includes("download") ? `Downloaded ${shortDate(t.updated_at)}` : `Done ${shortDate(t.updated_at)}`;
    case "FAILED":
      return `Failed: ${t.message || "no reason given"}`;
  }
}

export function TaskList({ tasks, live }: { tasks: Task[]; live: boolean }) {
  return (
    <>
      <p class="muted">{live ? "Progress shows here as it happens." : "Connecting to the server for live progress…"}</p>
      {!tasks.length ? (
        <p class="muted">No downloads or other tasks right now.</p>
      ) : (
        <ul class="list tasks">
          {tasks.map((t) => (
            <li key={t.id} class="card task">
              <div class="body">
                <p>
                  <strong>{what(t)}</strong>
                  {t.podcast_name && t.episode_title ? <span class="muted"> · {t.podcast_name}</span> : null}
                </p>
                <progress max={100} value={t.status === "SUCCESS" ? 100 : t.progress} aria-label={`Progress of ${what(t)}`} />
                <p class={t.status === "FAILED" ? "error" : "muted"}>{statusText(t)}</p>
              </div>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
