/**
 * Refresh benchmark (issue 4): N subscribed feeds (default 1,000) served from a loopback HTTP server,
 * one full refresh with every feed unchanged, then one with 10% of them changed (one new item each),
 * then unchanged again. Prints wall time, feeds/s and RSS / heap before and after each run.
 * Not a test: it asserts nothing. Goal: a full refresh under 20 s on 2 cores, flat memory.
 *
 *   npm run build && node dist/bench/refresh.bench.js [feeds]
 *   BENCH_PROFILE="10% changed" ...: that run (its label) under the CPU profiler; its top functions printed
 */
import fs from "fs";
import { fork } from "child_process";
import http from "http";
import os from "os";
import path from "path";
import type { AddressInfo } from "net";
import { Session } from "inspector/promises";
import { ServiceBroker, type ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import type { RefreshSummary } from "../shared/contracts/feeds";
import type { RefreshTarget } from "../shared/contracts/podcasts";
import { profileSummary } from "./kit";

const FIXTURES = [
  "all_things_chemical_4items.xml",
  "launched_36items_cdata_html.xml",
  "endorphine_fuer_delfine_de_32items_itunes_keywords.rss",
  "podcast_help_desk_rawvoice.rss",
  "realworld_changing_the_tide.xml",
  "podcasting20_pc20rss_56items_p20tags.xml",
  "realworld_animated_no_agenda_video_mp4.xml",
  "minimal_itunes_3items.xml",
];

const mb = (n: number) => (n / 1024 / 1024).toFixed(1);

async function main() {
  const count = Number(process.argv[2] ?? 1000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "refresh-bench-"));
  config.dataDir = dataDir;
  config.refreshInterval = 0; // the runs below are the only refreshes
  config.outboundAllowPrivate = "127.0.0.1/32"; // the feeds are on loopback, which users may not reach by default

  // The feeds are served by a child process: a server's feeds come from other machines, and served from this
  // one they took ~20% of the thread the refresh runs on.
  const feedServer = fork(__filename, [], { env: { ...process.env, REFRESH_BENCH_FEEDS: String(count) } });
  const ask = <T>(msg: object) =>
    new Promise<T>((resolve) => {
      feedServer.once("message", (answer) => resolve(answer as T));
      feedServer.send(msg);
    });
  const base = await new Promise<string>((resolve) => feedServer.once("message", (m) => resolve((m as { base: string }).base)));
  const served = () => ask<{ requests: number }>({ op: "requests" }).then((m) => m.requests);

  // Service modules read config when they load, so they are loaded after it is set.
  const { default: PodcastsService } = await import("../services/podcasts.service");
  const { default: EpisodesService } = await import("../services/episodes.service");
  const { default: FeedsService } = await import("../services/feeds.service");
  // A new feed's older episodes are imported by a job (tasks + workers), as on a server.
  const { default: TasksService } = await import("../services/tasks.service");
  const { default: WorkersService } = await import("../services/workers.service");
  const brokerConfig = (await import("../moleculer.config")).default;
  const broker = new ServiceBroker({ ...brokerConfig, transporter: null, logger: false });
  // Each schema is typed with its own `this`; the broker takes a plain one.
  const load = (schema: object) => broker.createService(schema as ServiceSchema);
  load(PodcastsService);
  load(EpisodesService);
  // The feeds service's own method, which moleculer's Service type does not list.
  const feeds = load(FeedsService) as unknown as { runFullRefresh(): Promise<RefreshSummary> };
  load(TasksService);
  load(WorkersService);
  await broker.start();

  console.log(`refresh benchmark: ${count} feeds from ${FIXTURES.length} fixtures, ${os.cpus().length} CPUs, node ${process.version}, store in ${dataDir}`);
  let t = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const i = next++;
        await broker.call("podcasts.add_custom_podcast", { feed_url: `${base}/feed/${i}.xml`, user_id: 1 + (i % 50) });
      }
    }),
  );
  // add_custom_podcast stores the older episodes of long feeds after answering: wait for every import.
  for (;;) {
    const targets = await broker.call<RefreshTarget[], object>("podcasts.refresh_targets", {});
    if (targets.every((x) => x.content_hash)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  console.log(`set-up: ${count} subscriptions in ${((Date.now() - t) / 1000).toFixed(1)} s`);

  const run = async (label: string) => {
    global.gc?.();
    const before = process.memoryUsage();
    const seen = await served();
    const profiler = process.env.BENCH_PROFILE === label ? new Session() : null;
    if (profiler) {
      profiler.connect();
      await profiler.post("Profiler.enable");
      await profiler.post("Profiler.start");
    }
    t = Date.now();
    const summary = await feeds.runFullRefresh();
    const secs = (Date.now() - t) / 1000;
    if (profiler) {
      const { profile } = await profiler.post("Profiler.stop");
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "refresh-profile-"));
      fs.writeFileSync(path.join(dir, "run.cpuprofile"), JSON.stringify(profile));
      console.log(`profile of "${label}" (${dir}):\n${profileSummary(dir, true)}`);
      profiler.disconnect();
    }
    const after = process.memoryUsage();
    console.log(
      `${label.padEnd(22)} ${secs.toFixed(2).padStart(6)} s  ${(count / secs).toFixed(0).padStart(5)} feeds/s  ` +
        `requests ${(await served()) - seen}  updated ${summary.updated}  unchanged ${summary.unchanged}  failed ${summary.failed}  new episodes ${summary.new_episodes}  ` +
        `RSS ${mb(before.rss)} -> ${mb(after.rss)} MB  heap ${mb(before.heapUsed)} -> ${mb(after.heapUsed)} MB`,
    );
    return secs;
  };

  const results: number[] = [];
  results.push(await run("all unchanged"));
  await ask({ op: "bump", from: 0 });
  results.push(await run("10% changed"));
  results.push(await run("all unchanged again"));
  await ask({ op: "bump", from: 5 });
  results.push(await run("10% changed again"));
  console.log(
    `goal: under 20 s per full refresh of 1,000 feeds on 2 cores; slowest run here ${Math.max(...results).toFixed(2)} s (${(20 / Math.max(...results)).toFixed(1)}x under the goal)`,
  );

  await broker.stop();
  feedServer.kill();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/**
 * The feed server (the child process): feed i is fixture i % k with its own channel title, so every feed is
 * its own document; a bump adds one item to every tenth feed from `from`. Even feeds answer conditional
 * requests (ETag), odd ones always send the body.
 */
function serveFeeds(count: number) {
  const fixtureDir = path.join(__dirname, "..", "..", "test", "fixtures", "feeds");
  const bodies = FIXTURES.map((f) => fs.readFileSync(path.join(fixtureDir, f), "utf8"));
  const version = new Array<number>(count).fill(0);
  const feedBody = (i: number) => {
    const base = bodies[i % bodies.length].replace(/<title>/, `<title>Feed ${i} `);
    if (!version[i]) return base;
    const item = `<item><title>New ${i}.${version[i]}</title><guid>new-${i}-${version[i]}</guid><pubDate>${new Date().toUTCString()}</pubDate><enclosure url="https://example.test/${i}/${version[i]}.mp3" length="1" type="audio/mpeg"/></item>`;
    return base.replace(/<item>|<item /, (m) => item + m);
  };
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    const i = Number(/\/feed\/(\d+)\.xml/.exec(req.url ?? "")?.[1]);
    if (!(i >= 0 && i < count)) return void res.writeHead(404).end();
    const etag = `"${i}-${version[i]}"`;
    if (i % 2 === 0 && req.headers["if-none-match"] === etag) return void res.writeHead(304, { ETag: etag }).end();
    res.writeHead(200, { "Content-Type": "application/rss+xml; charset=utf-8", ...(i % 2 === 0 ? { ETag: etag } : {}) });
    res.end(feedBody(i));
  });
  process.on("message", (m: { op: "requests" | "bump"; from?: number }) => {
    if (m.op === "bump") for (let i = m.from!; i < count; i += 10) version[i]++;
    process.send!({ requests });
  });
  server.listen(0, "127.0.0.1", () => process.send!({ base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
}

if (process.env.REFRESH_BENCH_FEEDS) serveFeeds(Number(process.env.REFRESH_BENCH_FEEDS));
else
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
