/**
 * Sync server benchmark (issue 18): a phone with SUBS subscriptions and ACTIONS episode actions syncs for
 * the first time (upload, then a second device downloads everything), then syncs incrementally, against
 * this server (as `npm start` runs it: every service in one process of its own, the embedded store under a temp
 * DATA_DIR, real HTTP) and against oPodSync (PHP's built-in server on a free port, its code checked out of a
 * clone of https://github.com/kd2org/opodsync into a temp dir, SQLite), measured in the same run with the same requests. Not a
 * test: it asserts nothing but that each server answered what was uploaded.
 *
 *   npm run build && node dist/bench/gpodder.bench.js [subscriptions] [actions] [stored]
 *   (stored: the incremental sync is measured again once the server holds this many actions, loaded by uploads of
 *   `actions` a request, default 1000000, 0: not; env OPODSYNC_REPO: a clone of oPodSync (bare or not), default
 *   $TMPDIR/opodsync; BENCH_ROUNDS: incremental rounds, default 20; BENCH_FIRST_USERS: users whose first upload of
 *   the subscriptions is timed, default 5; BENCH_REPEAT: whole runs per
 *   server, taking turns, default 2; BENCH_PROFILE=<dir>: this server under --cpu-prof, its top functions printed,
 *   with BENCH_REPEAT=1)
 */
import { ChildProcess, execFileSync, spawn } from "child_process";
import fs from "fs";
import os from "os";
import path from "path";
import { freePort, keyOf, profileSummary, server, stop, waitReady } from "./kit";

const SUBS = Number(process.argv[2] ?? 1000);
const ACTIONS = Number(process.argv[3] ?? 100_000);
/** Actions stored when the incremental sync is measured the second time (0: not measured). */
const STORED = Number(process.argv[4] ?? 1_000_000);
/** Actions per upload request of the phone (AntennaPod sends 30); the desktop then sends all in one (gPodder desktop, under SYNC_MAX_BODY_SIZE). */
const CHUNK = 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
/** Whole runs per server, taking turns (the best time of each step counts). */
const REPEAT = Number(process.env.BENCH_REPEAT ?? 2);
const OPODSYNC_REPO = process.env.OPODSYNC_REPO ?? path.join(os.tmpdir(), "opodsync");
const PROFILE_DIR = process.env.BENCH_PROFILE;
/**
 * Users whose first upload of the subscriptions is timed, one after another, the bench's own user last: one request
 * alone is one sample, and the first after a start also times V8 compiling this server's code for it.
 */
const FIRST_USERS = Math.max(1, Number(process.env.BENCH_FIRST_USERS ?? 5));
const USER = "benchuser";
/** The other users of the subscriptions step: benchuser1, benchuser2, ... */
const otherUsers = Array.from({ length: FIRST_USERS - 1 }, (_, i) => `${USER}${i + 1}`);
const PASSWORD = "bench password 42";

interface Peer {
  name: string;
  url: string;
  stop(): Promise<void>;
}

async function waitUp(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not start`);
}

/**
 * This server as `npm start` runs it (bench/kit.ts): every service in one process of its own, as oPodSync has
 * PHP's, so that neither shares a CPU or a heap with this client. BENCH_PROFILE=<dir>: under --cpu-prof, the
 * profile written there when it stops.
 */
async function startOurs(): Promise<Peer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gpodder-bench-"));
  const port = await freePort();
  const child = server({
    PORT: String(port),
    HOST: "127.0.0.1",
    SEARCH_PORT: String(await freePort()),
    SEARCH_HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    TRANSPORTER: "",
    REFRESH_INTERVAL: "0",
    SYNC_INTERVAL: "0",
    OUTBOUND_ALLOW_PRIVATE: "false",
    ...(PROFILE_DIR ? { CPU_PROF_DIR: PROFILE_DIR } : {}),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, 120_000);
  const first = await fetch(`${url}/api/data/create_first`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: USER, password: PASSWORD, email: "bench@example.org", fullname: "Bench" }),
  });
  if (!first.ok) throw new Error(`create_first: ${first.status}`);
  const adminKey = await keyOf(url, USER, PASSWORD);
  for (const username of otherUsers) {
    const made = await fetch(`${url}/api/data/add_user`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Api-Key": adminKey },
      body: JSON.stringify({ username, hash_pw: PASSWORD, email: `${username}@example.org`, fullname: username }),
    });
    if (!made.ok) throw new Error(`add_user: ${made.status} ${await made.text()}`);
  }
  return {
    name: "this server",
    url,
    stop: async () => {
      await stop(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** oPodSync from its repository, with PHP's built-in server and a user written into its SQLite database. */
async function startOpodsync(): Promise<Peer> {
  if (!fs.existsSync(OPODSYNC_REPO))
    throw new Error(`No oPodSync at ${OPODSYNC_REPO}: git clone https://github.com/kd2org/opodsync ${OPODSYNC_REPO} (or set OPODSYNC_REPO)`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "opodsync-bench-"));
  execFileSync("sh", ["-c", `git -C "${OPODSYNC_REPO}" archive HEAD server | tar -x -C "${root}"`]);
  const data = path.join(root, "data");
  fs.mkdirSync(data);
  const port = await freePort();
  // Bodies as large as this server's SYNC_MAX_BODY_SIZE (the desktop's one-request upload).
  const child: ChildProcess = spawn(
    "php",
    [
      "-S",
      `127.0.0.1:${port}`,
      "-d",
      "variables_order=EGPCS",
      "-d",
      "post_max_size=32M",
      "-d",
      "memory_limit=1G",
      "-t",
      path.join(root, "server"),
      path.join(root, "server", "index.php"),
    ],
    {
      env: { ...process.env, DATA_ROOT: data },
      stdio: "ignore",
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitUp(`${url}/`);
  // The first request created the schema; the users are written as its register page would.
  for (const username of [USER, ...otherUsers])
    execFileSync("php", [
      "-r",
      `$db = new SQLite3($argv[1]); $s = $db->prepare('INSERT INTO users (name, password) VALUES (?, ?)'); $s->bindValue(1, $argv[2]); $s->bindValue(2, password_hash($argv[3], PASSWORD_DEFAULT)); $s->execute();`,
      path.join(data, "data.sqlite"),
      username,
      PASSWORD,
    ]);
  return {
    name: "oPodSync",
    url,
    stop: () => {
      child.kill();
      fs.rmSync(root, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

/** What the bench reads of the gPodder API's answers: subscription changes and episode actions since a timestamp. */
interface SubscriptionChanges {
  add: string[];
  timestamp: number;
}
interface EpisodeActions {
  actions: unknown[];
  timestamp: number;
}

/** A gPodder client of one server: Basic once at login, then the session cookie, as apps do. */
class Client {
  private cookie = "";
  constructor(
    private readonly base: string,
    private readonly user = USER,
  ) {}

  /** T: what the caller reads of the answer (null when it is empty). */
  async call<T = unknown>(method: string, p: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (this.cookie) headers.Cookie = this.cookie;
    else headers.Authorization = `Basic ${Buffer.from(`${this.user}:${PASSWORD}`).toString("base64")}`;
    const send = () => fetch(`${this.base}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    // A kept-alive socket the server closed as idle just as it was reused: the request is sent again, as apps'
    // HTTP clients (OkHttp, browsers) do on a stale pooled connection. fetch pools one origin's sockets for all clients.
    const stale = (err: unknown) => {
      const code = (err as { cause?: { code?: string } } | null | undefined)?.cause?.code;
      return code === "UND_ERR_SOCKET" || code === "ECONNRESET";
    };
    const res = await send().catch((err: unknown) => {
      if (stale(err)) return send();
      throw err;
    });
    const cookie = res.headers.get("set-cookie");
    if (cookie) this.cookie = cookie.split(";")[0];
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 200)}`);
    return (text ? (JSON.parse(text) as unknown) : null) as T;
  }
}

const feedUrl = (i: number) => `http://127.0.0.1:9/feeds/show-${i}.xml`;
/** A play action; the history's are dated in 2024, the incremental rounds' now (oPodSync's `since` compares the action's own time). */
const action = (i: number, device: string, at = new Date(Date.UTC(2024, 0, 1) + i * 1000)) => ({
  podcast: feedUrl(i % SUBS),
  episode: `http://127.0.0.1:9/media/show-${i % SUBS}/ep-${i}.mp3`,
  device,
  action: "play",
  timestamp: at.toISOString().slice(0, 19),
  started: 0,
  position: i % 3000,
  total: 3000,
});

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = process.hrtime.bigint();
  const out = await fn();
  return [out, Number(process.hrtime.bigint() - start) / 1e6];
}

/** The laptop's first download (both lists, since=0), checked; only its timestamps are kept, not the 100,000 actions. */
async function firstDownload(laptop: Client, peer: Peer): Promise<{ subs: number; eps: number; ms: number }> {
  const [[subs, eps], ms] = await timed(() =>
    Promise.all([
      laptop.call<SubscriptionChanges>("GET", `/api/2/subscriptions/${USER}/laptop.json?since=0`),
      laptop.call<EpisodeActions>("GET", `/api/2/episodes/${USER}.json?since=0`),
    ]),
  );
  if (subs.add.length < SUBS || eps.actions.length < ACTIONS)
    throw new Error(`${peer.name} answered ${subs.add.length} feeds and ${eps.actions.length} actions`);
  return { subs: subs.timestamp, eps: eps.timestamp, ms };
}

/** A history of `count` play actions of other episodes from `first` on, in one request (as gPodder desktop sends it); its timestamp. */
async function uploadHistory(client: Client, peer: Peer, first: number, count: number): Promise<{ timestamp: number; ms: number }> {
  const history = Array.from({ length: count }, (_, i) => action(first + i, "desktop"));
  const [up, ms] = await timed(() => client.call<{ timestamp?: unknown } | null>("POST", `/api/2/episodes/${USER}.json`, history));
  if (typeof up?.timestamp !== "number") throw new Error(`${peer.name} answered a history upload without a timestamp`);
  return { timestamp: up.timestamp, ms };
}

/** A user's phone logs in, registers, and uploads its SUBS feeds in one request: the upload's time. */
async function firstSubscriptions(peer: Peer, user: string): Promise<number> {
  const phone = new Client(peer.url, user);
  await phone.call("POST", `/api/2/auth/${user}/login.json`);
  await phone.call("POST", `/api/2/devices/${user}/phone.json`, { caption: "Phone", type: "mobile" });
  const [, ms] = await timed(() =>
    phone.call("POST", `/api/2/subscriptions/${user}/phone.json`, { add: Array.from({ length: SUBS }, (_, i) => feedUrl(i)), remove: [] }),
  );
  return ms;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function run(peer: Peer): Promise<Record<string, number>> {
  // The other users' first uploads come first, the bench's own user's last (its library is the one measured on).
  const subsTimes: number[] = [];
  for (const user of otherUsers) subsTimes.push(await firstSubscriptions(peer, user));
  const phone = new Client(peer.url);
  const laptop = new Client(peer.url);
  await phone.call("POST", `/api/2/auth/${USER}/login.json`);
  await laptop.call("POST", `/api/2/auth/${USER}/login.json`);
  await phone.call("POST", `/api/2/devices/${USER}/phone.json`, { caption: "Phone", type: "mobile" });
  await laptop.call("POST", `/api/2/devices/${USER}/laptop.json`, { caption: "Laptop", type: "laptop" });
  const out: Record<string, number> = {};
  const [, mine] = await timed(() =>
    phone.call("POST", `/api/2/subscriptions/${USER}/phone.json`, { add: Array.from({ length: SUBS }, (_, i) => feedUrl(i)), remove: [] }),
  );
  subsTimes.push(mine);
  const subsUp = median(subsTimes);
  out[`upload subscriptions (median of ${FIRST_USERS} users)`] = subsUp;
  out["upload subscriptions, first after start"] = subsTimes[0];
  const [, actionsUp] = await timed(async () => {
    for (let i = 0; i < ACTIONS; i += CHUNK)
      await phone.call(
        "POST",
        `/api/2/episodes/${USER}.json`,
        Array.from({ length: Math.min(CHUNK, ACTIONS - i) }, (_, k) => action(i + k, "phone")),
      );
  });
  out["upload actions"] = actionsUp;
  const first = await firstDownload(laptop, peer);
  out["first download (both lists)"] = first.ms;
  out["first sync, total"] = subsUp + actionsUp + first.ms;
  // A desktop's first upload: its whole history (the same episodes, its own device) in one request.
  const desktop = new Client(peer.url);
  await desktop.call("POST", `/api/2/auth/${USER}/login.json`);
  const desktopUp = await uploadHistory(desktop, peer, 0, ACTIONS);
  out["upload actions, one request"] = desktopUp.ms;
  const since = { subs: first.subs, eps: Math.max(first.eps, desktopUp.timestamp) };
  let stored = 2 * ACTIONS;
  let round = 0;
  /**
   * ROUNDS rounds of "the phone adds a feed and uploads 10 actions; the laptop asks for what changed since its
   * last timestamp": the median time of the laptop's two requests.
   */
  const incremental = async (): Promise<number> => {
    const rounds: number[] = [];
    for (let r = 0; r < ROUNDS; r++, round++) {
      await new Promise((res) => setTimeout(res, 1100)); // oPodSync's since is whole seconds: the next round's changes must be newer
      await phone.call("POST", `/api/2/subscriptions/${USER}/phone.json`, { add: [feedUrl(SUBS + round)], remove: [] });
      await phone.call(
        "POST",
        `/api/2/episodes/${USER}.json`,
        Array.from({ length: 10 }, (_, k) => action(Math.max(STORED, 2 * ACTIONS) + round * 10 + k, "phone", new Date())),
      );
      stored += 10;
      const [[s, e], ms] = await timed(() =>
        Promise.all([
          laptop.call<SubscriptionChanges>("GET", `/api/2/subscriptions/${USER}/laptop.json?since=${since.subs}`),
          laptop.call<EpisodeActions>("GET", `/api/2/episodes/${USER}.json?since=${since.eps}`),
        ]),
      );
      if (e.actions.length < 10) throw new Error(`${peer.name}: incremental sync answered ${e.actions.length} actions`);
      since.subs = s.timestamp;
      since.eps = e.timestamp;
      rounds.push(ms);
    }
    return median(rounds);
  };
  out["incremental download, median"] = await incremental();
  if (STORED > stored) {
    // Up to STORED actions: more history of other episodes (dated 2024, as the first ones), ACTIONS a request as the desktop sent its own.
    let load = 0;
    for (let from = 2 * ACTIONS; stored < STORED; from += ACTIONS) {
      const count = Math.min(ACTIONS, STORED - stored);
      load += (await uploadHistory(desktop, peer, from, count)).ms;
      stored += count;
    }
    out[`load to ${STORED} actions`] = load;
    out[`incremental at ${STORED}, median`] = await incremental();
  }
  return out;
}

async function main() {
  console.log(
    `gPodder API v2 sync: ${SUBS} subscriptions, ${ACTIONS} episode actions (uploaded ${CHUNK} per request), ${ROUNDS} incremental rounds${STORED > 2 * ACTIONS ? ` (again at ${STORED} actions)` : ""}, best of ${REPEAT} runs`,
  );
  // The two servers take turns, REPEAT times each, and each step's best time counts: the machine is shared.
  const results: Record<string, Record<string, number>> = {};
  for (let round = 0; round < REPEAT; round++) {
    for (const start of [startOurs, startOpodsync]) {
      const peer = await start();
      try {
        const times = await run(peer);
        const best = (results[peer.name] ??= times);
        for (const [step, ms] of Object.entries(times)) best[step] = Math.min(best[step], ms);
      } finally {
        await peer.stop();
      }
    }
  }
  const ours = results["this server"];
  const theirs = results.oPodSync;
  const width = Math.max(...Object.keys(ours).map((step) => step.length));
  console.log(`${"step".padEnd(width)} ${"this server".padStart(12)} ${"oPodSync".padStart(12)} ${"oPodSync / ours".padStart(16)}`);
  for (const step of Object.keys(ours)) {
    console.log(
      `${step.padEnd(width)} ${ours[step].toFixed(0).padStart(9)} ms ${theirs[step].toFixed(0).padStart(9)} ms ${(theirs[step] / ours[step]).toFixed(2).padStart(15)}x`,
    );
  }
  if (PROFILE_DIR) console.log(`\nthis server: top functions by self time (idle left out)\n${profileSummary(PROFILE_DIR, true)}`);
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
