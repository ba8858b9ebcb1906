/**
 * A small listening library for the queue and playlist suites: alice and bob subscribed to one shared
 * loopback feed (episodes of known durations and dates), alice also to a second feed of her own.
 */
import { api, asUsers } from "./client";
import { Loopback, startLoopback } from "./loopback";
import { createUsers, rssFeed } from "./podcasts";
import { startServer, TestServer } from "./server";
import { config } from "../../shared/config";

const HOUR = 3_600_000;

/** The shared feed: [title, duration in seconds (0 = the feed gives none), hours before now]. */
export const SHARED_EPISODES: [string, number, number][] = [
  ["Tiny", 300, 1],
  ["Quarter", 900, 5],
  ["Just over", 901, 30],
  ["Twenty", 1200, 50],
  ["Half", 1800, 70],
  ["Three quarters", 2700, 90],
  ["Past commute", 2701, 20],
  ["Hour", 3600, 2],
  ["Long", 5000, 200],
  ["Unknown", 0, 3],
];
/** Alice's own feed: enough episodes for the concurrency tests. */
export const OWN_EPISODES = 30;

export interface Library {
  server: TestServer;
  feeds: Loopback;
  users: Record<string, { id: number; key: string }>;
  shared: number;
  own: number;
  get: ReturnType<typeof asUsers>["get"];
  post: ReturnType<typeof asUsers>["post"];
  /** Episode ids by title, of both podcasts. */
  ids: Record<string, number>;
  stop(): Promise<void>;
}

export function feedOf(title: string, items: [string, number, number][], base: string): string {
  const now = Date.now();
  return rssFeed(
    title,
    items.map(([t, duration, hours], n) => ({
      title: t,
      guid: `${base}-${n}`,
      url: `https://media.test/${base}/${n}.mp3`,
      date: new Date(now - hours * HOUR).toISOString(),
      duration,
    })),
  );
}

/** opts: the server's (a capturing logger, for one). */
export async function startLibrary(opts: Parameters<typeof startServer>[0] = {}): Promise<Library> {
  config.refreshInterval = 0;
  const own: [string, number, number][] = Array.from({ length: OWN_EPISODES }, (_, n) => [`Own ${String(n).padStart(2, "0")}`, 600 + n * 60, 10 + n]);
  const feeds = await startLoopback({
    "/shared.xml": { body: feedOf("Shared Show", SHARED_EPISODES, "shared") },
    "/own.xml": { body: feedOf("Alpha Own Show", own, "own") },
  });
  const server = await startServer(opts);
  const users = await createUsers(server.url, ["alice", "bob"]);
  const { get, post } = asUsers(() => ({ url: server.url, users }));
  const add = async (who: string, path: string) => {
    const res = await post("/api/data/add_podcast", who, { podcast_values: { pod_feed_url: feeds.url + path, user_id: users[who].id } });
    if (res.status !== 200) throw new Error(`add_podcast: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.podcast_id as number;
  };
  const shared = await add("alice", "/shared.xml");
  await add("bob", "/shared.xml");
  const ownId = await add("alice", "/own.xml");
  const all = await get(`/api/data/return_episodes/${users.alice.id}`, "alice", { limit: 1000 });
  const ids: Record<string, number> = {};
  for (const e of all.body.episodes) ids[e.episodetitle] = e.episodeid;
  return {
    server,
    feeds,
    users,
    shared,
    own: ownId,
    get,
    post,
    ids,
    stop: async () => {
      await server.stop();
      await feeds.close();
    },
  };
}

/** Writes one user's state of an episode through the episodes service (as the listening actions do). */
export function setState(lib: Library, who: string, episode_id: number, state: { listen_duration?: number; completed?: boolean }) {
  return lib.server.broker.call("episodes.update_state", { user_id: lib.users[who].id, episode_id, ...state });
}

/** A request with no key, a wrong key, or the given key. */
export function raw(lib: Library, method: "get" | "post" | "put" | "patch" | "delete", path: string, key: string | null) {
  const req = api(lib.server.url)[method](path);
  return key === null ? req : req.set("Api-Key", key);
}

/** Retries an assertion for up to a second: events are handled after the answer that caused them. */
export async function eventually(check: () => Promise<void>, ms = 1000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/**
 * Runs fn and answers how many service calls the broker made meanwhile for requests (ctx.call goes
 * through broker.call with a parentCtx). Background calls (the workers' poll for jobs) have none and
 * are not counted: they would land in a measurement at random.
 */
export async function countCalls(lib: Library, fn: () => Promise<unknown>): Promise<number> {
  const broker: any = lib.server.broker;
  const original = broker.call;
  let calls = 0;
  broker.call = function (this: unknown, ...args: unknown[]) {
    if ((args[2] as { parentCtx?: unknown } | undefined)?.parentCtx) calls++;
    return original.apply(this, args);
  };
  try {
    await fn();
  } finally {
    broker.call = original;
  }
  return calls;
}
