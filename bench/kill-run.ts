/**
 * The cluster as compose runs it, killed under load (issue 23): every service group as its own process
 * over NATS with the shared Redis cache and NeDB per service, the mixed player load (player-load.ts) through
 * the gateways, and every `intervalMs` a random non-gateway group killed with SIGKILL and started again at
 * once under the same node id (a container restarted by its runtime). `targets` may name one of the two
 * gateways instead: the load's balancer sends what could not reach it to the other one.
 * Returns the load's report, the state checks and the kills. Used by bench/kill.bench.ts (5 minutes,
 * 6 kills) and test/cluster/kill-restart.cluster.test.ts (about a minute).
 */
import fs from "fs";
import http from "http";
import type { AddressInfo } from "net";
import os from "os";
import path from "path";
import { serviceGroups } from "../shared/service-groups";
import { findNatsServer, freePort, Proc, startNats, startNode, startRedis, waitClusterHealthy } from "../test/helpers/processes";
import { CLIENTS, type LoadReport, startPlayerLoad } from "./player-load";

const EPISODES = 24;

export interface KillRunOptions {
  kills: number;
  intervalMs: number;
  /** What to kill, in turn (a group's name, or gateway-1 / gateway-2); by default a random non-gateway group each time. */
  targets?: string[];
  log?: (line: string) => void;
}

export interface KillRunResult {
  report: LoadReport;
  /** State read back after the run that contradicts an acknowledged write (empty: none). */
  wrong: string[];
  /** at: seconds into the load; time: Date.now() of the kill. */
  kills: { group: string; at: number; time: number }[];
  seconds: number;
  /** The gateways' log lines of requests that failed (the error's name says why). */
  gatewayErrors: string[];
}

/** A loopback feed of EPISODES episodes. */
function feedServer(): Promise<{ url: string; close(): void }> {
  return new Promise((resolve) => {
    const server = http.createServer((_req, res) => {
      const items = Array.from(
        { length: EPISODES },
        (_, i) =>
          `<item><title>Episode ${i + 1}</title><guid>kill-${i + 1}</guid><pubDate>${new Date(Date.UTC(2024, 0, 1) + i * 86_400_000).toUTCString()}</pubDate>` +
          `<enclosure url="http://127.0.0.1/ep-${i + 1}.mp3" length="1000" type="audio/mpeg"/></item>`,
      ).join("");
      res
        .writeHead(200, { "Content-Type": "application/rss+xml" })
        .end(
          `<?xml version="1.0"?><rss version="2.0"><channel><title>Kill run</title><link>http://127.0.0.1/</link><description>d</description>${items}</channel></rss>`,
        );
    });
    server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed.xml`, close: () => server.close() }));
  });
}

export async function killRun(opts: KillRunOptions): Promise<KillRunResult> {
  const log = opts.log ?? (() => undefined);
  const nats = await startNats(findNatsServer() ?? "nats-server");
  const redis = await startRedis();
  const feed = await feedServer();
  const temp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), p));
  const common = {
    TRANSPORTER: nats.url,
    CACHER: redis.url,
    NAMESPACE: `kill-run-${process.pid}-${Date.now()}`,
    DATA_DIR: temp("podcast-kill-run-"),
    DOWNLOAD_DIR: temp("podcast-kill-run-files-"),
    REFRESH_INTERVAL: "0",
    MAX_USER_KEYS: "100000",
  }; // the player load creates an API key every fourth turn: more than the default bound of 100 a user
  const procs: Record<string, Proc> = {};
  const gatewayLogs: string[] = [];
  const groups = serviceGroups.filter((g) => g.name !== "gateway");
  const gatewayPorts = [await freePort(), await freePort()];
  const searchPort = String(await freePort());
  const start = (name: string) => {
    if (name.startsWith("gateway")) {
      const port = gatewayPorts[Number(name.slice("gateway-".length)) - 1];
      procs[name] = startNode({ ...common, PORT: String(port), NODE_ID: name }, ["api"]);
    } else {
      procs[name] = startNode(
        { ...common, NODE_ID: `${name}-1`, ...(name === "search" ? { SEARCH_PORT: searchPort } : {}) },
        groups.find((g) => g.name === name)!.services,
      );
    }
  };
  const gateways = ["gateway-1", "gateway-2"];
  const urls = gatewayPorts.map((p) => `http://127.0.0.1:${p}`);
  try {
    for (const g of [...gateways, ...groups.map((g) => g.name)]) start(g);
    await waitClusterHealthy(urls, procs, ["auth", "users", "podcasts", "episodes", "queue", "tasks", "downloads", "sync"], 90_000);

    const call = async <T = unknown>(method: string, p: string, body?: object, key?: string) => {
      const res = await fetch(`${urls[0]}${p}`, {
        method,
        headers: { "Content-Type": "application/json", ...(key ? { "Api-Key": key } : {}) },
        body: body && JSON.stringify(body),
      });
      if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<T>;
    };
    await call("POST", "/api/data/create_first", { username: "player", password: "player password", email: "p@example.org", fullname: "P" });
    const key: string = (
      (await (
        await fetch(`${urls[0]}/api/data/get_key`, { headers: { Authorization: `Basic ${Buffer.from("player:player password").toString("base64")}` } })
      ).json()) as { retrieved_key: string }
    ).retrieved_key;
    const { podcast_id } = await call<{ podcast_id: number }>("POST", "/api/data/add_podcast", { podcast_values: { pod_feed_url: feed.url, user_id: 1 } }, key);
    let episodes: number[] = [];
    for (const end = Date.now() + 60_000; episodes.length < EPISODES && Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
      episodes = (
        await call<{ episodes: { episodeid: number }[] }>("GET", `/api/data/podcast_episodes?user_id=1&podcast_id=${podcast_id}`, undefined, key)
      ).episodes.map((e) => e.episodeid);
    }
    if (episodes.length < CLIENTS) throw new Error(`only ${episodes.length} episodes imported`);

    const started = Date.now();
    const load = await startPlayerLoad({ gateways: () => urls, key, userId: 1, episodes });
    const kills: KillRunResult["kills"] = [];
    for (let i = 0; i < opts.kills; i++) {
      await new Promise((r) => setTimeout(r, opts.intervalMs));
      const name = opts.targets?.[i % opts.targets.length] ?? groups[Math.floor(Math.random() * groups.length)].name;
      kills.push({ group: name, at: Math.round((Date.now() - started) / 1000), time: Date.now() });
      log(`${kills[i].at}s: kill -9 ${name}`);
      await procs[name].stop("SIGKILL");
      if (gateways.includes(name)) gatewayLogs.push(procs[name].output());
      start(name);
    }
    // Until every group is back and the last kill's calls have settled.
    await waitClusterHealthy(urls, procs, ["auth", "users", "podcasts", "episodes", "queue", "tasks", "downloads", "sync"], 60_000);
    await new Promise((r) => setTimeout(r, Math.min(opts.intervalMs, 15_000)));
    const report = await load.stop();
    const wrong = await load.verify(urls[0]).catch((err: Error) => [`state not read back: ${err.message}`]);
    const gatewayErrors = gatewayLogs
      .concat(gateways.map((g) => procs[g].output()))
      .join("\n")
      .split("\n")
      .filter((l) => l.includes("request failed"));
    return { report, wrong, kills, seconds: Math.round((Date.now() - started) / 1000), gatewayErrors };
  } finally {
    await Promise.all(Object.values(procs).map((p) => p.stop("SIGKILL")));
    await Promise.all([nats.proc.stop(), redis.proc.stop()]);
    feed.close();
  }
}
