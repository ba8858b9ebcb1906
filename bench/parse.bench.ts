/**
 * Feed parse throughput: our parser against rss-parser and podcast-partytime, same fixtures, same
 * run. Prints ratios; asserts nothing (timings depend on the machine). See bench/README.md.
 *
 *   npm run build && node dist/bench/parse.bench.js [seconds-per-parser, default 3]
 */
import * as fs from "fs";
import * as path from "path";
import RssParser from "rss-parser";
import { parseFeed as partytimeParse, FeedObject } from "podcast-partytime";
import { logger as partytimeLogger } from "podcast-partytime/dist/logger";
import { parseFeed, ParsedEpisode, ParsedFeed } from "../shared/feed-parser";

// partytime logs every skipped item through pino; logging is not parsing.
partytimeLogger.level = "silent";

interface Fixture {
  name: string;
  xml: string;
  bytes: number;
  /** <item>/<entry> elements counted in the text: the truth every parser is checked against. */
  items: number;
  /** Podcasting 2.0 tag names present in the text. */
  p20: Set<string>;
}

interface Outcome {
  items: number;
  p20: Set<string>;
}

interface Peer {
  name: string;
  /** Parses one document; throws or returns null on failure. */
  parse(xml: string): Promise<Outcome | null>;
}

function findFixtures(): string {
  for (const dir of [
    path.resolve(__dirname, "../../test/fixtures/feeds"),
    path.resolve(__dirname, "../test/fixtures/feeds"),
    path.resolve("test/fixtures/feeds"),
  ]) {
    if (fs.existsSync(dir)) return dir;
  }
  throw new Error("test/fixtures/feeds not found; run from the repository root");
}

function podcastPrefixes(xml: string): string[] {
  const prefixes = new Set(["podcast"]);
  for (const m of xml.matchAll(/xmlns:([\w.-]+)\s*=\s*["']([^"']*)["']/g)) {
    if (/podcastindex\.org\/namespace\/1\.0|podcastindex-org\/podcast-namespace/i.test(m[2])) prefixes.add(m[1]);
  }
  return [...prefixes];
}

function loadFixtures(): Fixture[] {
  const dir = findFixtures();
  return fs
    .readdirSync(dir)
    .filter((f) => /\.(xml|rss|atom)$/.test(f))
    .sort()
    .map((name) => {
      const raw = fs.readFileSync(path.join(dir, name));
      const xml = raw.toString("utf8");
      const p20 = new RegExp(`<(?:${podcastPrefixes(xml).join("|")}):([A-Za-z]+)`, "g");
      return {
        name,
        xml,
        bytes: raw.length,
        items: (xml.match(/<(?:item|entry)[\s>/]/g) ?? []).length,
        p20: new Set([...xml.matchAll(p20)].map((m) => m[1])),
      };
    });
}

/** Podcasting 2.0 tag names our parser extracted a value for. */
function tagsOurs(feed: ParsedFeed): Set<string> {
  const tags = new Set<string>();
  const add = (tag: string, present: unknown) => {
    if (Array.isArray(present) ? present.length : present !== null && present !== false) tags.add(tag);
  };
  const common = (x: ParsedFeed | ParsedEpisode) => {
    add("person", x.persons);
    add("value", x.values);
    add(
      "valueRecipient",
      x.values.some((v) => v.recipients.length),
    );
    add("location", x.locations);
    add("license", x.license);
    add("txt", x.txt);
    // podcast:image carries purpose/type/alt/height; podcast:images only a srcset.
    add(
      "image",
      x.images.some((i) => i.purpose || i.type || i.alt || i.height),
    );
    add(
      "images",
      x.images.some((i) => !(i.purpose || i.type || i.alt || i.height)),
    );
  };
  common(feed);
  add("guid", feed.podcast_guid);
  add("medium", feed.medium);
  add("locked", feed.locked !== null);
  add("funding", feed.funding);
  add("trailer", feed.trailers);
  add("podroll", feed.podroll);
  add("remoteItem", feed.podroll.length > 0 || feed.publisher !== null);
  add("publisher", feed.publisher);
  add("block", feed.blocks);
  add("podping", feed.podping !== null);
  add("chat", feed.chat);
  add("liveItem", feed.live_items);
  add(
    "contentLink",
    feed.live_items.some((l) => l.content_links.length),
  );
  for (const ep of feed.episodes) {
    common(ep);
    add("transcript", ep.transcripts);
    add("chapters", ep.chapters);
    add("soundbite", ep.soundbites);
    add("season", ep.podcast_season);
    add("episode", ep.podcast_episode);
    add("alternateEnclosure", ep.alternate_enclosures);
    add(
      "source",
      ep.alternate_enclosures.some((a) => a.sources.length),
    );
    add(
      "integrity",
      ep.alternate_enclosures.some((a) => a.integrity),
    );
    add("socialInteract", ep.social_interacts);
  }
  return tags;
}

/** The same over partytime's output shape. */
function tagsPartytime(feed: FeedObject): Set<string> {
  const tags = new Set<string>();
  const add = (tag: string, present: unknown) => {
    if (Array.isArray(present) ? present.length : present !== undefined && present !== null && present !== false) tags.add(tag);
  };
  const common = (x: FeedObject | FeedObject["items"][number]) => {
    add("person", x.podcastPeople);
    add("value", x.value);
    add("valueRecipient", x.value?.recipients);
    add("location", x.podcastLocation);
    add("license", x.license);
    add("txt", x.podcastTxt);
    add("images", x.podcastImages);
    add("remoteItem", x.podcastRemoteItems);
  };
  common(feed);
  add("guid", feed.guid);
  add("medium", feed.medium);
  add("locked", feed.locked);
  add("funding", feed.podcastFunding);
  add("trailer", feed.trailers);
  add("podroll", feed.podroll);
  add("remoteItem", feed.podroll);
  add("publisher", feed.podcastPublisher);
  add("block", Object.keys(feed.podcastBlocked ?? {}));
  add("chat", feed.chat);
  add("liveItem", feed.podcastLiveItems);
  add(
    "contentLink",
    feed.podcastLiveItems?.some((l) => l.contentLinks.length),
  );
  for (const ep of feed.items) {
    common(ep);
    add("transcript", ep.podcastTranscripts);
    add("chapters", ep.podcastChapters);
    add("soundbite", ep.podcastSoundbites);
    add("season", ep.podcastSeason);
    add("episode", ep.podcastEpisode);
    add("alternateEnclosure", ep.alternativeEnclosures);
    add(
      "source",
      ep.alternativeEnclosures?.some((a) => a.source.length),
    );
    add(
      "integrity",
      ep.alternativeEnclosures?.some((a) => a.integrity),
    );
    add("socialInteract", ep.podcastSocialInteraction);
  }
  return tags;
}

/** rss-parser keeps only the fields it knows; any podcast:* key it passes through counts. */
function tagsByKey(x: unknown, tags = new Set<string>()): Set<string> {
  if (Array.isArray(x)) {
    for (const v of x) tagsByKey(v, tags);
  } else if (x && typeof x === "object") {
    for (const [k, v] of Object.entries(x)) {
      if (k.startsWith("podcast:")) tags.add(k.slice(8));
      tagsByKey(v, tags);
    }
  }
  return tags;
}

const ROUNDS = 4;
const rss = new RssParser();
const peers: Peer[] = [
  {
    name: "ours (fast-xml-parser)",
    parse: (xml) => {
      const feed = parseFeed(xml);
      return Promise.resolve({ items: feed.episodes.length, p20: tagsOurs(feed) });
    },
  },
  {
    name: "rss-parser 3.13.0",
    parse: async (xml) => {
      const feed = await rss.parseString(xml);
      return { items: feed.items.length, p20: tagsByKey(feed) };
    },
  },
  {
    name: "podcast-partytime 5.0.0",
    parse: (xml) => {
      // partytime also console.warns about items without guid; printing is not parsing.
      const warn = console.warn;
      console.warn = () => undefined;
      try {
        const feed = partytimeParse(xml);
        return Promise.resolve(feed ? { items: feed.items.length, p20: tagsPartytime(feed) } : null);
      } finally {
        console.warn = warn;
      }
    },
  },
];

interface Result {
  peer: Peer;
  failures: string[];
  /** Podcasting 2.0 tag names extracted over all fixtures. */
  p20: Set<string>;
  mbps: number;
  itemsps: number;
}

async function check(peer: Peer, fixtures: Fixture[]): Promise<Result> {
  const result: Result = { peer, failures: [], p20: new Set(), mbps: 0, itemsps: 0 };
  for (const f of fixtures) {
    try {
      const out = await peer.parse(f.xml);
      if (!out) result.failures.push(`${f.name} (no result)`);
      else {
        for (const tag of out.p20) result.p20.add(tag);
        if (out.items !== f.items) result.failures.push(`${f.name} (${out.items}/${f.items} items)`);
      }
    } catch (err) {
      result.failures.push(
        `${f.name} (${String((err as Error).message)
          .split("\n")[0]
          .slice(0, 60)})`,
      );
    }
  }
  return result;
}

/**
 * Parses every fixture in a loop for `seconds` of this process's CPU time (not wall time: on a
 * shared machine other processes would otherwise decide the ratio). Failures count as parsed work.
 */
async function throughput(peer: Peer, fixtures: Fixture[], seconds: number): Promise<{ mbps: number; itemsps: number }> {
  const bytes = fixtures.reduce((n, f) => n + f.bytes, 0);
  const items = fixtures.reduce((n, f) => n + f.items, 0);
  const pass = async () => {
    for (const f of fixtures) {
      try {
        await peer.parse(f.xml);
      } catch {
        // counted in check(); here only the time matters
      }
    }
  };
  await pass(); // warm-up: JIT and lazy initialisation out of the measurement
  let rounds = 0;
  const start = process.cpuUsage();
  let elapsed = 0;
  while (elapsed < seconds) {
    await pass();
    rounds++;
    const used = process.cpuUsage(start);
    elapsed = (used.user + used.system) / 1e6;
  }
  return { mbps: (bytes * rounds) / elapsed / 1e6, itemsps: (items * rounds) / elapsed };
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2]) || 3;
  const fixtures = loadFixtures();
  const totalBytes = fixtures.reduce((n, f) => n + f.bytes, 0);
  const p20Present = new Set(fixtures.flatMap((f) => [...f.p20]));
  console.log(
    `feed parse benchmark: ${fixtures.length} fixture feeds, ${(totalBytes / 1e6).toFixed(2)} MB, ` +
      `${fixtures.reduce((n, f) => n + f.items, 0)} items, ${p20Present.size} distinct Podcasting 2.0 tags; ` +
      `${seconds}s CPU per parser in ${ROUNDS} interleaved rounds, best kept; node ${process.version}`,
  );

  const results: Result[] = [];
  for (const peer of peers) results.push(await check(peer, fixtures));
  // Interleaved rounds, so that a noisy moment on the machine does not hit one parser only.
  for (let round = 0; round < ROUNDS; round++) {
    for (const r of results) {
      const t = await throughput(r.peer, fixtures, seconds / ROUNDS);
      if (t.mbps > r.mbps) Object.assign(r, t);
    }
  }

  console.log("");
  console.log(`${"parser".padEnd(26)}${"MB/s".padStart(8)}${"items/s".padStart(10)}${"P2.0 tags".padStart(11)}  feeds failed`);
  for (const r of results) {
    console.log(
      `${r.peer.name.padEnd(26)}${r.mbps.toFixed(1).padStart(8)}${Math.round(r.itemsps).toString().padStart(10)}` +
        `${`${r.p20.size}/${p20Present.size}`.padStart(11)}  ${r.failures.length}/${fixtures.length}`,
    );
  }
  console.log("");
  for (const r of results) {
    if (r.failures.length) console.log(`${r.peer.name} fails on: ${r.failures.join(", ")}`);
    const missed = [...p20Present].filter((t) => !r.p20.has(t));
    console.log(`${r.peer.name} misses P2.0 tags: ${missed.length ? missed.join(", ") : "none"}`);
  }
  const [ours, ...others] = results;
  const fastest = others.reduce((a, b) => (b.mbps > a.mbps ? b : a));
  console.log("");
  console.log(
    `ratio ours / fastest peer (${fastest.peer.name}): ${(ours.mbps / fastest.mbps).toFixed(2)}x MB/s, ` +
      `${(ours.itemsps / fastest.itemsps).toFixed(2)}x items/s (goal >= 1.5x)`,
  );
  for (const r of others) console.log(`ratio ours / ${r.peer.name}: ${(ours.mbps / r.mbps).toFixed(2)}x MB/s`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
