/**
 * Set-up of the inbox and episode filter suites: a server, users, and loopback feeds whose items carry
 * descriptions and dates relative to now (an item dated after the subscription is new to its subscribers).
 */
import { config } from "../../shared/config";
import { asUsers } from "./client";
import { type Loopback, startLoopback } from "./loopback";
import { createUsers } from "./podcasts";
import { startServer, type TestServer } from "./server";

export interface FeedItem {
  title: string;
  /** Minutes from now (negative: before the subscription; positive: after it). */
  minutes: number;
  duration?: number;
  description?: string;
}

const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** An RSS feed of these items: guid and enclosure from the title (so that a refresh finds the same episode again). */
export function feedXml(loop: Loopback, title: string, items: FeedItem[], image?: string): string {
  const now = Date.now();
  const body = items
    .map((i) => {
      const slug = encodeURIComponent(i.title.slice(0, 60));
      return [
        `<item><title>${xml(i.title)}</title><guid>${slug}</guid>`,
        `<pubDate>${new Date(now + i.minutes * 60_000).toUTCString()}</pubDate>`,
        i.duration ? `<itunes:duration>${i.duration}</itunes:duration>` : "",
        i.description ? `<description>${xml(i.description)}</description>` : "",
        `<enclosure url="${loop.url}/media/${slug}.mp3" length="1000" type="audio/mpeg"/></item>`,
      ].join("");
    })
    .join("\n");
  const art = image ? `<itunes:image href="${image}"/>` : "";
  return `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>${xml(title)}</title><link>https://example.test/</link><description>test feed</description>${art}\n${body}\n</channel></rss>`;
}

export interface InboxLibrary {
  server: TestServer;
  feeds: Loopback;
  users: Record<string, { id: number; key: string }>;
  get: ReturnType<typeof asUsers>["get"];
  post: ReturnType<typeof asUsers>["post"];
  /** Serves the feed at /<name>.xml. */
  serve(name: string, title: string, items: FeedItem[], image?: string): void;
  /** Subscribes the user to /<name>.xml; the podcast id. */
  subscribe(who: string, name: string): Promise<number>;
  /** Refreshes the user's feeds now (their new episodes announced as a refresh announces them). */
  refresh(who: string): Promise<void>;
  /** The user's episode ids of a podcast by title. */
  episodeIds(who: string, podcast_id: number): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

export async function startInboxLibrary(names: string[]): Promise<InboxLibrary> {
  config.refreshInterval = 0;
  const feeds = await startLoopback();
  const server = await startServer();
  const users = await createUsers(server.url, names);
  const { get, post } = asUsers(() => ({ url: server.url, users }));
  return {
    server,
    feeds,
    users,
    get,
    post,
    serve: (name, title, items, image) =>
      feeds.route(`/${name}.xml`, { headers: { "Content-Type": "application/rss+xml" }, body: feedXml(feeds, title, items, image) }),
    async subscribe(who, name) {
      const res = await post("/api/data/add_podcast", who, { podcast_values: { pod_feed_url: `${feeds.url}/${name}.xml`, user_id: users[who].id } });
      if (res.status !== 200) throw new Error(`add_podcast: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.podcast_id as number;
    },
    async refresh(who) {
      const res = await get("/api/data/refresh_pods", who);
      if (res.status !== 200) throw new Error(`refresh_pods: ${res.status} ${JSON.stringify(res.body)}`);
    },
    async episodeIds(who, podcast_id) {
      const res = await get("/api/data/podcast_episodes", who, { user_id: users[who].id, podcast_id, limit: 1000 });
      return Object.fromEntries(res.body.episodes.map((e: any) => [e.episodetitle, e.episodeid]));
    },
    stop: async () => {
      await server.stop();
      await feeds.close();
    },
  };
}
