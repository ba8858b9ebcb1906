/**
 * Search service benchmark (issue 11): 200 concurrent clients search 50 distinct terms on the search
 * gateway for N seconds (default 20), against a loopback directory provider answering in 50 ms.
 * Prints requests/s, latencies, provider hits and the cache hit ratio, and the same clients against
 * the provider itself as the peer measured in this run. Not a test: it asserts nothing.
 * Goal: cache hit ratio above 95%, p99 under 100 ms on hits.
 *
 *   npm run build && node dist/bench/search.bench.js [seconds]
 */
import fs from "fs";
import http from "http";
import os from "os";
import path from "path";
import type { AddressInfo } from "net";
import autocannon from "autocannon";
import { ServiceBroker, type ServiceSchema } from "moleculer";
import { config } from "../shared/config";

const CLIENTS = 200;
const TERMS = 50;
const PROVIDER_DELAY_MS = 50;

/**
 * A directory provider that answers every search after 50 ms with a recorded response. Only signed
 * requests (the search service's) count as hits: the peer run's last requests may still arrive later.
 */
async function startProvider(): Promise<{ url: string; hits: () => number; close: () => void }> {
  const body = fs.readFileSync(path.join(__dirname, "..", "..", "test", "fixtures", "providers", "podcastindex_search_byterm_q-batman-university.json"));
  let hits = 0;
  const server = http.createServer((req, res) => {
    if (req.headers["x-auth-key"]) hits++;
    setTimeout(() => res.writeHead(200, { "Content-Type": "application/json", "Content-Length": body.length }).end(body), PROVIDER_DELAY_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, hits: () => hits, close: () => server.close() };
}

/** Every client cycles through the 50 terms; the load generator runs in a worker thread, off the server's event loop. */
function run(url: string, seconds: number, pathOf: (term: number) => string): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections: CLIENTS,
    duration: seconds,
    workers: 1,
    requests: Array.from({ length: TERMS }, (_, t) => ({ method: "GET" as const, path: pathOf(t) })),
  });
}

function line(name: string, r: autocannon.Result, extra = ""): void {
  const errors = r.errors + r.timeouts + r.non2xx;
  console.log(
    `${name.padEnd(34)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms   ` +
      `${r.requests.total} requests, ${errors} failed${extra}`,
  );
}

async function main() {
  const seconds = Number(process.argv[2] ?? 20);
  const provider = await startProvider();
  config.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "search-bench-"));
  config.directoryApiUrl = provider.url;
  config.apiKey = "bench-key";
  config.apiSecret = "bench-secret";
  config.searchPort = 0;
  config.searchHost = "127.0.0.1";

  // Loaded after the config above: the gateway reads its port when its module loads.
  const brokerConfig = (await import("../moleculer.config")).default;
  const broker = new ServiceBroker({ ...brokerConfig, transporter: null, logger: false });
  // Each schema is typed with its own `this`; the broker takes a plain one.
  const load = (schema: object) => broker.createService(schema as ServiceSchema);
  load((await import("../services/search.service")).default);
  load((await import("../services/search-api.service")).default);
  await broker.start();
  // moleculer-web keeps its http.Server on the service as `server`, which moleculer's Service type leaves out.
  const gateway = broker.getLocalService("search-api") as unknown as { server: http.Server };
  const searchUrl = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;
  const termPath = (t: number) => `/api/search?query=bench+term+${t}`;

  console.log(
    `${CLIENTS} clients, ${TERMS} distinct terms, ${seconds} s per run, provider answers in ${PROVIDER_DELAY_MS} ms, cache TTL ${config.searchCacheTtl} s`,
  );
  const peer = await run(provider.url, seconds, (t) => `/search/byterm?q=bench+term+${t}`);
  line("provider itself (peer)", peer);

  const before = provider.hits();
  const cold = await run(searchUrl, seconds, termPath);
  const coldHits = provider.hits() - before;
  line("search service, cache empty at start", cold, `, ${coldHits} provider hits, hit ratio ${(100 * (1 - coldHits / cold.requests.total)).toFixed(2)}%`);

  const warmBefore = provider.hits();
  const warm = await run(searchUrl, seconds, termPath);
  const warmHits = provider.hits() - warmBefore;
  line("search service, every term cached", warm, `, ${warmHits} provider hits`);

  const ratio = (r: autocannon.Result) => (r.requests.average / peer.requests.average).toFixed(1);
  console.log(
    `ratios to the provider: requests/s ${ratio(cold)}x (cache empty at start), ${ratio(warm)}x (cached); p99 on hits ${warm.latency.p99} ms vs the provider's ${peer.latency.p99} ms`,
  );
  await broker.stop();
  provider.close();
  fs.rmSync(config.dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
