/**
 * Downloads and streaming benchmark (issue 9). Not a test: it asserts nothing.
 *
 * 1. U users download E episodes of S MB (default 20 users, 200 episodes, 20 MB) from a loopback media
 *    server through the API (bulk_download_episodes, WORKER_CONCURRENCY jobs in flight): wall time, MB/s
 *    and peak RSS, against curl fetching the same files with the same parallelism.
 * 2. R concurrent Range readers (default 50) of one F MB downloaded file (default 500) through
 *    /api/data/stream, against a bare node:http static file server reading the same file.
 *
 *   npm run build && node dist/bench/downloads.bench.js [users] [episodes] [episodeMB] [readers] [fileMB]
 */
import { execFile } from "child_process";
import fs from "fs";
import http from "http";
import os from "os";
import path from "path";
import type { AddressInfo } from "net";
import { promisify } from "util";
import { ServiceBroker, type ServiceSchema } from "moleculer";
import { config } from "../shared/config";

const [USERS, EPISODES, EPISODE_MB, READERS, FILE_MB] = [20, 200, 20, 50, 500].map((d, i) => Number(process.argv[2 + i] ?? d));
const MB = 1024 * 1024;
const run = promisify(execFile);

/** Peak RSS of this process (server and clients) while fn runs. */
async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; secs: number; peakRss: number }> {
  let peakRss = process.memoryUsage().rss;
  const timer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  const t = process.hrtime.bigint();
  try {
    const value = await fn();
    return { value, secs: Number(process.hrtime.bigint() - t) / 1e9, peakRss };
  } finally {
    clearInterval(timer);
  }
}

function listen(handler: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer(handler);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

/** Serves a file with a single Range, the way a plain static server does. */
function staticFile(file: string, type: string): http.RequestListener {
  const size = fs.statSync(file).size;
  return (req, res) => {
    const m = /^bytes=(\d+)-(\d*)$/.exec(String(req.headers.range ?? ""));
    const start = m ? Number(m[1]) : 0;
    const end = m && m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
    res.writeHead(m ? 206 : 200, {
      "Content-Type": type,
      "Content-Length": end - start + 1,
      ...(m ? { "Content-Range": `bytes ${start}-${end}/${size}` } : {}),
    });
    fs.createReadStream(file, { start, end }).pipe(res);
  };
}

/** An API call's answer (JSON, else the text); T: what the caller reads of it. */
async function call<T = unknown>(base: string, method: string, p: string, key: string | null, body?: unknown): Promise<T> {
  const res = await fetch(base + p, {
    method,
    headers: { "Content-Type": "application/json", ...(key ? { "Api-Key": key } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return (text.startsWith("{") || text.startsWith("[") ? (JSON.parse(text) as unknown) : text) as T;
}

/** R readers, each fetching its own slice of the file with a Range request; total MB/s. */
async function rangeReaders(url: (i: number) => string, size: number, readers: number) {
  const slice = Math.floor(size / readers);
  const { secs, peakRss } = await measured(() =>
    Promise.all(
      Array.from({ length: readers }, async (_, i) => {
        const res = await fetch(url(i), { headers: { Range: `bytes=${i * slice}-${(i + 1) * slice - 1}` } });
        let got = 0;
        for await (const chunk of res.body as ReadableStream<Uint8Array>) got += chunk.length;
        if (got !== slice) throw new Error(`reader ${i} got ${got} of ${slice} bytes`);
      }),
    ),
  );
  return { mbps: (slice * readers) / MB / secs, secs, peakRss };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "downloads-bench-"));
  // The feed and media are on loopback, which the outbound policy refuses to users unless allowed.
  Object.assign(config, {
    dataDir: path.join(dir, "data"),
    downloadDir: path.join(dir, "downloads"),
    refreshInterval: 0,
    port: 0,
    host: "127.0.0.1",
    downloadMaxBytes: 4 * 1024 * MB,
    outboundAllowPrivate: "127.0.0.1/32",
  });
  const episodeBytes = Buffer.alloc(EPISODE_MB * MB, 7);
  const media = await listen((req, res) => {
    if (req.url === "/feed.xml") {
      const items = Array.from(
        { length: EPISODES },
        (_, i) =>
          `<item><title>Episode ${i}</title><guid>e${i}</guid><pubDate>${new Date(Date.UTC(2024, 0, 1) + i * 3600_000).toUTCString()}</pubDate><enclosure url="MEDIA/e${i}.mp3" length="${episodeBytes.length}" type="audio/mpeg"/></item>`,
      );
      return void res.end(
        `<?xml version="1.0"?><rss version="2.0"><channel><title>Bench</title><link>https://example.test/</link><description>b</description>${items.join("").replace(/MEDIA/g, media.url)}</channel></rss>`,
      );
    }
    res.writeHead(200, { "Content-Type": "audio/mpeg", "Content-Length": episodeBytes.length });
    res.end(episodeBytes);
  });

  // Every service of `npm start`, in this process (service modules read config when they load).
  const brokerConfig = (await import("../moleculer.config")).default;
  const broker = new ServiceBroker({ ...brokerConfig, transporter: null, logger: false });
  const serviceDir = path.join(__dirname, "..", "services");
  for (const f of fs.readdirSync(serviceDir).filter((f) => f.endsWith(".service.js"))) {
    const schema = ((await import(path.join(serviceDir, f))) as { default: ServiceSchema }).default;
    broker.createService(schema.name === "api" ? { ...schema, settings: { ...schema.settings, port: 0, ip: "127.0.0.1" } } : schema);
  }
  await broker.start();
  // moleculer-web keeps its http.Server on the service as `server`, which moleculer's Service type leaves out.
  const gateway = broker.getLocalService("api") as unknown as { server: http.Server };
  const base = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;
  const password = "a long password";
  const basic = (u: string) => ({ Authorization: "Basic " + Buffer.from(`${u}:${password}`).toString("base64") });
  await call(base, "POST", "/api/data/create_first", null, { username: "admin", password, email: "a@example.test", fullname: "A" });
  const adminKey = ((await (await fetch(`${base}/api/data/get_key`, { headers: basic("admin") })).json()) as { retrieved_key: string }).retrieved_key;
  const users: { id: number; key: string }[] = [];
  for (let i = 0; i < USERS; i++) {
    const made = await call<{ user_id: number }>(base, "POST", "/api/data/add_user", adminKey, {
      username: `u${i}`,
      fullname: "U",
      email: `u${i}@example.test`,
      hash_pw: password,
    });
    users.push({
      id: made.user_id,
      key: ((await (await fetch(`${base}/api/data/get_key`, { headers: basic(`u${i}`) })).json()) as { retrieved_key: string }).retrieved_key,
    });
  }
  let episodeIds: number[] = [];
  for (const u of users) {
    const added = await call<{ podcast_id: number }>(base, "POST", "/api/data/add_podcast", u.key, {
      podcast_values: { pod_feed_url: `${media.url}/feed.xml`, user_id: u.id },
    });
    if (!episodeIds.length) {
      await new Promise((r) => setTimeout(r, 500)); // the older episodes of a first import land right after the answer
      episodeIds = (
        await call<{ episodes: { episodeid: number }[] }>(base, "GET", `/api/data/podcast_episodes?user_id=${u.id}&podcast_id=${added.podcast_id}`, u.key)
      ).episodes.map((e) => e.episodeid);
    }
  }
  console.log(
    `downloads benchmark: ${USERS} users, ${episodeIds.length} episodes of ${EPISODE_MB} MB, WORKER_CONCURRENCY ${config.workerConcurrency}, ${os.cpus().length} CPUs, node ${process.version}`,
  );

  // 1. Each user downloads their share of the episodes; done when no task is unfinished.
  const per = Math.ceil(episodeIds.length / USERS);
  const ours = await measured(async () => {
    await Promise.all(
      users.map((u, i) =>
        call(base, "POST", "/api/data/bulk_download_episodes", u.key, { user_id: u.id, episode_ids: episodeIds.slice(i * per, (i + 1) * per) }),
      ),
    );
    while ((await call<unknown[]>(base, "GET", "/api/tasks/active", adminKey)).length) await new Promise((r) => setTimeout(r, 100));
  });
  const total = (episodeIds.length * episodeBytes.length) / MB;
  const failed = (await call<{ status: string }[]>(base, "GET", `/api/tasks/user/${users[0].id}`, users[0].key)).filter((t) => t.status !== "SUCCESS").length;
  const curlDir = path.join(dir, "curl");
  fs.mkdirSync(curlDir);
  const urls = episodeIds.map((_, i) => [`${media.url}/e${i}.mp3`, "-o", path.join(curlDir, `e${i}.mp3`)]).flat();
  const curl = await measured(() => run("curl", ["-s", "--parallel", "--parallel-max", String(config.workerConcurrency), ...urls], { maxBuffer: 1 << 20 }));
  const ourMbps = total / ours.secs;
  const curlMbps = total / curl.secs;
  console.log(
    `download  ours ${ours.secs.toFixed(2)} s  ${ourMbps.toFixed(0)} MB/s  peak RSS ${(ours.peakRss / MB).toFixed(0)} MB  (${failed} of user 1's tasks not SUCCESS)`,
  );
  console.log(`download  curl ${curl.secs.toFixed(2)} s  ${curlMbps.toFixed(0)} MB/s  -> ours/curl ${(ourMbps / curlMbps).toFixed(2)} (goal >= 0.80)`);
  fs.rmSync(config.downloadDir, { recursive: true, force: true });
  fs.rmSync(curlDir, { recursive: true, force: true });

  // 2. One big downloaded file read by many Range readers: through the API, then a bare static server.
  const big = path.join(config.downloadDir, "Bench", "big.mp3");
  fs.mkdirSync(path.dirname(big), { recursive: true });
  const chunk = Buffer.alloc(MB, 3);
  const fd = fs.openSync(big, "w");
  for (let i = 0; i < FILE_MB; i++) fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  const size = FILE_MB * MB;
  const u = users[0];
  await broker.call("downloads.record_download", {
    user_id: u.id,
    episode_id: episodeIds[0],
    podcast_id: 1,
    file: path.join("Bench", "big.mp3"),
    size,
    content_type: "audio/mpeg",
  });
  const api = await rangeReaders(() => `${base}/api/data/stream/${episodeIds[0]}?api_key=${u.key}&user_id=${u.id}`, size, READERS);
  const bare = await listen(staticFile(big, "audio/mpeg"));
  const plain = await rangeReaders(() => `${bare.url}/big.mp3`, size, READERS);
  console.log(
    `stream    ours ${api.mbps.toFixed(0)} MB/s  peak RSS ${(api.peakRss / MB).toFixed(0)} MB; node:http ${plain.mbps.toFixed(0)} MB/s  -> ours/node:http ${(api.mbps / plain.mbps).toFixed(2)} (goal >= 0.70)`,
  );

  bare.server.close();
  media.server.close();
  await broker.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
