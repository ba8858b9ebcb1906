/**
 * Inbox benchmark (issue 30): one user subscribed 30 days ago to 1,000 podcasts of 100 episodes each
 * (100,000 episodes over 60 days, so ~50,000 published since), 20,000 of them heard, a queue of 200, 5,000
 * dismissed, episode filters on 200 podcasts (100 with an expression, 100 with durations). Prints p50 / p99
 * of the inbox's first page, a far page, the count and a dismissal, and of the first page once the catalogue
 * changed (the filters' verdicts read again). Every service in this process, on the embedded store. Not a
 * test: it asserts nothing.
 *
 *   npm run build && node dist/bench/inbox.bench.js [podcasts] [episodes per podcast]   (env BENCH_CALLS, default 50)
 */
import fs from "fs";
import path from "path";
import { ServiceBroker, type ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import type { EpisodesThis } from "../services/episodes.parts/this";

const SERVICE_DIR = path.join(__dirname, "..", "services");
const DAY = 86_400_000;
const CALLS = Number(process.env.BENCH_CALLS ?? 50);
const WORDS = ["climate", "history", "science", "music", "startup", "health", "football", "cooking", "space", "economy"];

interface BulkStore {
  insertMany(docs: object[]): Promise<unknown>;
}
type Episodes = Pick<EpisodesThis, "loadCatalog" | "statesChanged" | "catalogChanged"> & {
  adapter: BulkStore;
  stores: { episode_states: BulkStore; inbox_dismissals: BulkStore };
};

function random(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

async function main() {
  const [pods, perPodcast] = [Number(process.argv[2] ?? 1000), Number(process.argv[3] ?? 100)];
  config.dataDir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "inbox-bench-"));
  const brokerConfig = (await import("../moleculer.config")).default;
  const broker = new ServiceBroker({ ...brokerConfig, transporter: null, logger: false, nodeID: "inbox-bench" });
  for (const f of fs.readdirSync(SERVICE_DIR).filter((f) => f.endsWith(".service.js") && !/^(api|search-api)\.service\.js$/.test(f))) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- each built service file by a path read at run time
    const mod = require(path.join(SERVICE_DIR, f)) as ServiceSchema & { default?: ServiceSchema };
    broker.createService(mod.default ?? mod);
  }
  await broker.start();
  const rnd = random(30);
  const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)];
  const { user_id } = await broker.call<{ user_id: number }, object>("users.create_first", {
    username: "listener",
    password: "a long password",
    email: "listener@example.org",
    fullname: "Listener",
  });
  const podcasts = broker.getLocalService("podcasts") as unknown as { adapter: BulkStore; stores: { subscriptions: BulkStore } };
  const episodes = broker.getLocalService("episodes") as unknown as Episodes;
  const now = Date.now();
  const t0 = Date.now();
  const podDocs: object[] = [];
  const subDocs: object[] = [];
  for (let p = 1; p <= pods; p++) {
    podDocs.push({
      _id: p,
      feed_key: `bench-${p}`,
      feed_url: `https://feeds.test/${p}.xml`,
      title: `Podcast ${p}`,
      artwork_url: null,
      categories: [],
      p20: {},
    });
    const filters =
      p % 10 === 1
        ? { include: "/climate|science/", exclude: "", min_duration: null, max_duration: null }
        : p % 10 === 2
          ? { include: "", exclude: "", min_duration: 600, max_duration: 5400 }
          : null;
    subDocs.push({
      _id: p,
      key: `${user_id}:${p}`,
      user_id,
      podcast_id: p,
      subscribed_date: new Date(now - 30 * DAY),
      feed_cutoff_days: 0,
      overrides: {},
      filters,
    });
  }
  await podcasts.adapter.insertMany(podDocs);
  await podcasts.stores.subscriptions.insertMany(subDocs);
  let id = 0;
  for (let p = 1; p <= pods; p++) {
    const batch: object[] = [];
    for (let n = 0; n < perPodcast; n++) {
      id++;
      batch.push({
        _id: id,
        podcast_id: p,
        guid: `g-${id}`,
        enclosure_key: `https://media.test/${id}.mp3`,
        title: `Episode ${n} of podcast ${p}: ${pick(WORDS)}`,
        description: `<p>In this episode we talk about ${pick(WORDS)}, ${pick(WORDS)} and ${pick(WORDS)}.</p> `.repeat(4),
        pub_date: new Date(now - rnd() * 60 * DAY),
        duration: 300 + Math.floor(rnd() * 7000),
        enclosure_url: `https://media.test/${id}.mp3`,
        enclosure_type: "audio/mpeg",
        enclosure_length: 1_000_000,
        p20: {},
        created_at: new Date(now),
      });
    }
    await episodes.adapter.insertMany(batch);
  }
  const total = id;
  const chosen = new Set<number>();
  while (chosen.size < Math.min(20_000, total)) chosen.add(1 + Math.floor(rnd() * total));
  const states = [...chosen].map((episode_id) => ({
    _id: `${user_id}:${episode_id}`,
    user_id,
    episode_id,
    podcast_id: Math.ceil(episode_id / perPodcast),
    listen_duration: Math.floor(rnd() * 3000),
    completed: rnd() < 0.6,
    saved: false,
    last_listened_at: new Date(now - rnd() * 30 * DAY),
  }));
  for (let i = 0; i < states.length; i += 5000) await episodes.stores.episode_states.insertMany(states.slice(i, i + 5000));
  const dismissed = new Set<number>();
  while (dismissed.size < Math.min(5000, total)) dismissed.add(1 + Math.floor(rnd() * total));
  const dismissals = [...dismissed].map((e) => ({
    _id: `${user_id}:${e}`,
    user_id,
    episode_id: e,
    podcast_id: Math.ceil(e / perPodcast),
    dismissed_at: new Date(now),
  }));
  await episodes.stores.inbox_dismissals.insertMany(dismissals);
  await episodes.loadCatalog();
  await episodes.statesChanged(user_id, null);
  const meta = { user: { id: user_id, isAdmin: false, keyId: 0, rssOnly: false, podcastIds: null } };
  await broker.call("queue.bulk_add", { user_id, episode_ids: Array.from({ length: 200 }, (_, i) => total - i * 7) }, { meta });
  console.log(`${pods} podcasts, ${total} episodes, ${states.length} states, ${dismissals.length} dismissals: seeded in ${Date.now() - t0} ms`);

  const first = Date.now();
  const page = await broker.call<{ total: number }, object>("episodes.inbox", { user_id, limit: 50 }, { meta });
  console.log(`inbox: ${page.total} episodes; first read (filters' verdicts made) ${Date.now() - first} ms`);
  const ops: [string, (n: number) => Promise<unknown>][] = [
    ["first page (50)", () => broker.call("episodes.inbox", { user_id, limit: 50 }, { meta })],
    ["page at offset 20,000", () => broker.call("episodes.inbox", { user_id, limit: 50, offset: 20_000 }, { meta })],
    ["count", () => broker.call("episodes.inbox_count", { user_id }, { meta })],
    ["dismiss one", (n) => broker.call("episodes.inbox_dismiss", { user_id, episode_ids: [1 + ((n * 7919) % total)] }, { meta })],
    // A refresh elsewhere changed the catalogue: the verdicts of the filtered podcasts are made again.
    [
      "first page after a catalogue change",
      async (n) => {
        await episodes.catalogChanged([1 + (n % total)], false);
        return broker.call("episodes.inbox", { user_id, limit: 50 }, { meta });
      },
    ],
  ];
  for (const [name, op] of ops) {
    const times: number[] = [];
    for (let n = 0; n < CALLS; n++) {
      const t = process.hrtime.bigint();
      await op(n);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))].toFixed(1);
    console.log(`  ${name}: p50 ${at(50)} ms, p99 ${at(99)} ms`);
  }
  await broker.stop();
  fs.rmSync(config.dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
