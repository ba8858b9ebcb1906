/**
 * Household benchmark (issue 20): a mixed player load on the embedded server (`npm start`'s runtime), this
 * tree's and another tree's (today's code, for a before/after) side by side in one run. 8 users subscribed
 * to the same 10 loopback feeds of 300 episodes, 16 clients (2 per user) each sending a request every
 * 1/(rate/16) s (a fixed rate, one request in flight per client) drawn from a mix of the reads a player
 * makes (queue, history, stats, home, saves, newest episodes) and its writes (positions, history, saves,
 * completion, queue changes, listen time), with the refresh scheduler running every minute. The servers
 * are measured in turns, `rounds` times each. Prints every operation's p50 / p99 per server, the rate
 * reached, errors, and each server's RSS (now and peak). Not a test: it asserts nothing.
 *
 *   npm run build && node dist/bench/household.bench.js [seconds per turn=30] [--rounds=2] [--rate=200] [--base=<tree>] [--profile]
 * --base: a tree with today's code built (dist/) and its node_modules, e.g. `git worktree add --detach ../store-base main`,
 * `ln -s $PWD/node_modules ../store-base/`, `(cd ../store-base && npx tsc -p tsconfig.json)`. Without it only this tree runs.
 * --profile: the servers run under --cpu-prof; their top functions by self time are printed at the end.
 */
import fs from "fs";
import http from "http";
import os from "os";
import path from "path";
import { freePort, keyOf, login, procMb, profileSummary, ROOT, server, stopAll, waitReady } from "./kit";

const USERS = 8;
const FEEDS = 10;
const ITEMS = 300;
const CLIENTS = 16;
const QUEUED = 20;
const HISTORY = 50;
const DAY = 86_400_000;

type Call = { method: string; path: string; body?: unknown };
/** One operation of the mix: its weight and the request it makes for a client (null: not possible now, another is drawn). */
interface Op {
  name: string;
  weight: number;
  write: boolean;
  make: (c: Client) => Call | null;
}
interface Client {
  user_id: number;
  key: string;
  rand: () => number;
  episodes: number[];
  queued: number[];
  saved: number[];
}

const pick = <T>(c: Client, xs: T[]): T => xs[Math.floor(c.rand() * xs.length)];
/** Takes a random element out of xs (the client's own record of what it queued or saved). */
const take = (c: Client, xs: number[]): number | null => (xs.length ? xs.splice(Math.floor(c.rand() * xs.length), 1)[0] : null);

const OPS: Op[] = [
  { name: "get_queued_episodes", weight: 8, write: false, make: (c) => ({ method: "GET", path: `/api/data/get_queued_episodes?user_id=${c.user_id}` }) },
  { name: "user_history", weight: 8, write: false, make: (c) => ({ method: "GET", path: `/api/data/user_history/${c.user_id}?limit=50` }) },
  { name: "get_stats", weight: 6, write: false, make: (c) => ({ method: "GET", path: `/api/data/get_stats?user_id=${c.user_id}` }) },
  { name: "home_overview", weight: 6, write: false, make: (c) => ({ method: "GET", path: `/api/data/home_overview?user_id=${c.user_id}` }) },
  { name: "saved_episode_list", weight: 6, write: false, make: (c) => ({ method: "GET", path: `/api/data/saved_episode_list/${c.user_id}?limit=50` }) },
  { name: "return_episodes", weight: 6, write: false, make: (c) => ({ method: "GET", path: `/api/data/return_episodes/${c.user_id}?limit=100` }) },
  {
    name: "record_listen_duration",
    weight: 20,
    write: true,
    make: (c) => ({
      method: "POST",
      path: "/api/data/record_listen_duration",
      body: { user_id: c.user_id, episode_id: pick(c, c.episodes), listen_duration: Math.floor(c.rand() * 1700) },
    }),
  },
  {
    name: "record_podcast_history",
    weight: 12,
    write: true,
    make: (c) => ({
      method: "POST",
      path: "/api/data/record_podcast_history",
      body: { user_id: c.user_id, episode_id: pick(c, c.episodes), episode_pos: Math.floor(c.rand() * 1700) },
    }),
  },
  {
    name: "save_episode",
    weight: 6,
    write: true,
    make: (c) => {
      const episode_id = pick(c, c.episodes);
      c.saved.push(episode_id);
      return { method: "POST", path: "/api/data/save_episode", body: { user_id: c.user_id, episode_id } };
    },
  },
  {
    name: "remove_saved_episode",
    weight: 3,
    write: true,
    make: (c) => {
      const episode_id = take(c, c.saved);
      return episode_id === null ? null : { method: "POST", path: "/api/data/remove_saved_episode", body: { user_id: c.user_id, episode_id } };
    },
  },
  {
    name: "mark_episode_completed",
    weight: 4,
    write: true,
    make: (c) => ({ method: "POST", path: "/api/data/mark_episode_completed", body: { user_id: c.user_id, episode_id: pick(c, c.episodes) } }),
  },
  {
    name: "queue_pod",
    weight: 6,
    write: true,
    make: (c) => {
      const episode_id = pick(c, c.episodes);
      if (!c.queued.includes(episode_id)) c.queued.push(episode_id);
      return { method: "POST", path: "/api/data/queue_pod", body: { user_id: c.user_id, episode_id } };
    },
  },
  {
    name: "remove_queued_pod",
    weight: 4,
    write: true,
    make: (c) => {
      const episode_id = take(c, c.queued);
      return episode_id === null ? null : { method: "POST", path: "/api/data/remove_queued_pod", body: { user_id: c.user_id, episode_id } };
    },
  },
  { name: "increment_listen_time", weight: 5, write: true, make: (c) => ({ method: "PUT", path: `/api/data/increment_listen_time/${c.user_id}` }) },
];
const TOTAL_WEIGHT = OPS.reduce((s, o) => s + o.weight, 0);

function random(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** FEEDS loopback feeds of ITEMS items; even ones answer If-None-Match with 304, odd ones always send the body. */
function feedServer(port: number) {
  const bodies = Array.from({ length: FEEDS }, (_, f) => {
    const items = Array.from(
      { length: ITEMS },
      (_, i) =>
        `<item><title>Feed ${f} episode ${i + 1}</title><guid>f${f}-ep-${i + 1}</guid><description>Episode ${i + 1} of feed ${f}: ${"show notes ".repeat(40)}</description>` +
        `<pubDate>${new Date(Date.UTC(2025, 0, 1) + i * DAY + f * 3_600_000).toUTCString()}</pubDate><itunes:duration>1800</itunes:duration>` +
        `<enclosure url="http://127.0.0.1:${port}/f${f}/ep-${i + 1}.mp3" length="1000" type="audio/mpeg"/></item>`,
    ).join("");
    return `<?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Household ${f}</title><link>http://127.0.0.1/</link><description>Feed ${f}</description>${items}</channel></rss>`;
  });
  return http
    .createServer((req, res) => {
      const f = Number(/\/feed(\d+)\.xml/.exec(req.url ?? "")?.[1]);
      if (!(f >= 0 && f < FEEDS)) return res.writeHead(404).end();
      const etag = `"feed-${f}"`;
      if (f % 2 === 0 && req.headers["if-none-match"] === etag) return res.writeHead(304).end();
      res.writeHead(200, { "Content-Type": "application/rss+xml", ...(f % 2 === 0 ? { ETag: etag } : {}) }).end(bodies[f]);
    })
    .listen(port, "127.0.0.1");
}

async function call(base: string, key: string, c: Call): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}${c.path}`, {
    method: c.method,
    headers: { "Api-Key": key, ...(c.body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: c.body === undefined ? undefined : JSON.stringify(c.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}

/** The answer of a call that must succeed; T: what the caller reads of it. */
async function ok<T = unknown>(base: string, key: string, c: Call): Promise<T> {
  const { status, body } = await call(base, key, c);
  if (status !== 200) throw new Error(`${c.method} ${c.path}: ${status} ${JSON.stringify(body)}`);
  return body as T;
}

/** The household through the API: users, their subscriptions (imports waited for), a queue and some history each. */
async function seed(base: string, feedBase: string): Promise<Client[]> {
  const adminKey = await login(base);
  const users: { user_id: number; key: string }[] = [{ user_id: 1, key: adminKey }];
  for (let u = 2; u <= USERS; u++) {
    const username = `listener${u}`;
    const { user_id } = await ok<{ user_id: number }>(base, adminKey, {
      method: "POST",
      path: "/api/data/add_user",
      body: { fullname: `Listener ${u}`, username, email: `${username}@example.org`, hash_pw: "listener password" },
    });
    users.push({ user_id, key: await keyOf(base, username, "listener password") });
  }
  const episodes: number[] = [];
  for (const [i, u] of users.entries()) {
    for (let f = 0; f < FEEDS; f++) {
      const { podcast_id } = await ok<{ podcast_id: number }>(base, u.key, {
        method: "POST",
        path: "/api/data/add_podcast",
        body: { podcast_values: { pod_feed_url: `${feedBase}/feed${f}.xml`, user_id: u.user_id } },
      });
      if (i > 0) continue;
      // The first subscriber's import may finish after add_podcast answers: wait for every episode.
      let listed: { episodeid: number }[] = [];
      for (const end = Date.now() + 120_000; listed.length < ITEMS && Date.now() < end; await new Promise((r) => setTimeout(r, 250))) {
        listed = (
          await ok<{ episodes: { episodeid: number }[] }>(base, u.key, {
            method: "GET",
            path: `/api/data/podcast_episodes?user_id=${u.user_id}&podcast_id=${podcast_id}&limit=${ITEMS}`,
          })
        ).episodes;
      }
      if (listed.length < ITEMS) throw new Error(`feed ${f}: ${listed.length} episodes imported, not ${ITEMS}`);
      episodes.push(...listed.map((e) => e.episodeid));
    }
  }
  const clients: Client[] = [];
  for (const [i, u] of users.entries()) {
    const rand = random(1000 + i);
    const queued = new Set<number>();
    for (let q = 0; q < QUEUED; q++) queued.add(episodes[Math.floor(rand() * episodes.length)]);
    for (const episode_id of queued) await ok(base, u.key, { method: "POST", path: "/api/data/queue_pod", body: { user_id: u.user_id, episode_id } });
    for (let h = 0; h < HISTORY; h++) {
      await ok(base, u.key, {
        method: "POST",
        path: "/api/data/record_podcast_history",
        body: { user_id: u.user_id, episode_id: episodes[Math.floor(rand() * episodes.length)], episode_pos: 600 },
      });
    }
    for (let k = 0; k < CLIENTS / USERS; k++) {
      clients.push({ ...u, rand: random(i * 100 + k + 1), episodes, queued: k === 0 ? [...queued] : [], saved: [] });
    }
  }
  return clients;
}

type Latencies = Map<string, { ms: number[]; failed: number }>;

/** Every client at its fixed rate for `seconds`; the latencies per operation. */
async function load(base: string, clients: Client[], seconds: number, rate: number, into: Latencies): Promise<number> {
  const interval = (1000 * clients.length) / rate;
  const end = Date.now() + seconds * 1000;
  let sent = 0;
  await Promise.all(
    clients.map(async (c, i) => {
      // Clients start spread over one interval, not all at once.
      let next = Date.now() + (interval * i) / clients.length;
      while (next < end) {
        await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
        next += interval;
        let op: Op;
        let req: Call | null;
        do {
          let w = c.rand() * TOTAL_WEIGHT;
          op = OPS.find((o) => (w -= o.weight) < 0) ?? OPS[0];
          req = op.make(c);
        } while (!req);
        const t0 = performance.now();
        const { status } = await call(base, c.key, req).catch(() => ({ status: 0 }));
        const entry = into.get(op.name) ?? { ms: [], failed: 0 };
        entry.ms.push(performance.now() - t0);
        // A queue or save of an episode already there, or a removal of one gone, may answer 404: not a failure of the store.
        if (status !== 200 && status !== 404) entry.failed++;
        into.set(op.name, entry);
        sent++;
      }
    }),
  );
  return sent / seconds;
}

function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

interface Setup {
  name: string;
  root: string;
  base: string;
  pid: number;
  clients: Client[];
  lat: Latencies;
  rates: number[];
  profDir: string;
  startMb: number;
}

async function main() {
  const seconds = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 30);
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const rounds = Number(arg("rounds") ?? 2);
  const rate = Number(arg("rate") ?? 200);
  const baseTree = arg("base");
  const profile = process.argv.includes("--profile");
  const feedPort = await freePort();
  const feeds = feedServer(feedPort);
  const trees = [...(baseTree ? [{ name: "before", root: path.resolve(baseTree) }] : []), { name: "after", root: ROOT }];
  console.log(
    `${USERS} users x ${FEEDS} feeds of ${ITEMS} episodes, ${CLIENTS} clients at ${rate} req/s in all, ${rounds} turns of ${seconds} s per server, ${os.cpus().length} cores`,
  );
  const setups: Setup[] = [];
  for (const t of trees) {
    const port = await freePort();
    const profDir = fs.mkdtempSync(path.join(os.tmpdir(), "household-prof-"));
    const env = {
      PORT: String(port),
      SEARCH_PORT: String(await freePort()),
      DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "household-bench-")),
      TRANSPORTER: "",
      OUTBOUND_ALLOW_PRIVATE: "127.0.0.1/32",
      REFRESH_INTERVAL: "1",
      MAX_USER_KEYS: "100000", // the player load creates an API key every fourth turn: more than the default bound of 100 a user
      ...(profile ? { CPU_PROF_DIR: profDir } : {}),
    };
    const child = server(env, undefined, t.root);
    const base = `http://127.0.0.1:${port}`;
    await waitReady(base, 120_000);
    const t0 = Date.now();
    const clients = await seed(base, `http://127.0.0.1:${feedPort}`);
    console.log(`${t.name} (${t.root}): seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s, RSS ${procMb(child.pid!, "VmRSS")} MB`);
    setups.push({ ...t, base, pid: child.pid!, clients, lat: new Map(), rates: [], profDir, startMb: procMb(child.pid!, "VmRSS") });
  }
  // A short warm-up of each, then the turns.
  for (const s of setups) await load(s.base, s.clients, 3, rate, new Map());
  for (let r = 0; r < rounds; r++) for (const s of setups) s.rates.push(await load(s.base, s.clients, seconds, rate, s.lat));
  feeds.close();

  const cols = setups.map((s) => s.name);
  console.log(`\nwall ms per request, p50 / p99 (requests, failed)\n${"operation".padEnd(24)} ${cols.map((c) => c.padEnd(30)).join(" ")}`);
  for (const op of OPS) {
    const cells = setups.map((s) => {
      const e = s.lat.get(op.name);
      return (
        e ? `${percentile(e.ms, 50).toFixed(1)} / ${percentile(e.ms, 99).toFixed(1)} (${e.ms.length}${e.failed ? `, ${e.failed} failed` : ""})` : "-"
      ).padEnd(30);
    });
    console.log(`${(op.name + (op.write ? " (w)" : "")).padEnd(24)} ${cells.join(" ")}`);
  }
  for (const kind of [true, false]) {
    const cells = setups.map((s) => {
      const ms = OPS.filter((o) => o.write === kind).flatMap((o) => s.lat.get(o.name)?.ms ?? []);
      return `${percentile(ms, 50).toFixed(1)} / ${percentile(ms, 99).toFixed(1)} (${ms.length})`.padEnd(30);
    });
    console.log(`${(kind ? "all writes" : "all reads").padEnd(24)} ${cells.join(" ")}`);
  }
  console.log(
    `${"req/s reached".padEnd(24)} ${setups
      .map((s) =>
        s.rates
          .map((x) => x.toFixed(0))
          .join(", ")
          .padEnd(30),
      )
      .join(" ")}`,
  );
  console.log(
    `${"RSS MB seeded/now/peak".padEnd(24)} ${setups.map((s) => `${s.startMb} / ${procMb(s.pid, "VmRSS")} / ${procMb(s.pid, "VmHWM")}`.padEnd(30)).join(" ")}`,
  );
  if (profile) {
    await stopAll();
    for (const s of setups) console.log(`\n${s.name}: top functions by self time (idle left out)\n${profileSummary(s.profDir, true)}`);
  }
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(stopAll);
