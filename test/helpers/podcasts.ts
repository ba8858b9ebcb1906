/** Shared set-up of the podcast tests: users with keys, and fixture feeds served from loopback. */
import fs from "fs";
import path from "path";
import { api, basic } from "./client";
import type { Loopback } from "./loopback";

export const FEEDS_DIR = path.join(__dirname, "..", "fixtures", "feeds");

export function fixture(name: string): string {
  return fs.readFileSync(path.join(FEEDS_DIR, name), "utf8");
}

/** Creates the first admin plus the named users; returns { name: { id, key } } (admin under "admin"). */
export async function createUsers(url: string, names: string[]): Promise<Record<string, { id: number; key: string }>> {
  const http = () => api(url);
  const out: Record<string, { id: number; key: string }> = {};
  const password = "a long password";
  const first = await http().post("/api/data/create_first").send({ username: "admin", password, email: "admin@example.org", fullname: "Admin" });
  if (first.status !== 200) throw new Error(`create_first: ${first.status} ${JSON.stringify(first.body)}`);
  const login = async (username: string) =>
    (await http().get("/api/data/get_key").set("Authorization", basic(username, password))).body.retrieved_key as string;
  out.admin = { id: first.body.user_id, key: await login("admin") };
  for (const name of names) {
    const res = await http()
      .post("/api/data/add_user")
      .set("Api-Key", out.admin.key)
      .send({ fullname: name, username: name, email: `${name}@example.org`, hash_pw: password });
    if (res.status !== 200) throw new Error(`add_user: ${res.status} ${JSON.stringify(res.body)}`);
    out[name] = { id: res.body.user_id, key: await login(name) };
  }
  return out;
}

/** An RSS 2.0 feed built from items (duration in seconds), for tests that change a feed between refreshes or need exact values. */
export function rssFeed(title: string, items: { title: string; guid?: string; url: string; date: string; duration?: number }[]): string {
  const body = items
    .map(
      (i) =>
        `<item><title>${i.title}</title>${i.guid ? `<guid>${i.guid}</guid>` : ""}<pubDate>${new Date(i.date).toUTCString()}</pubDate>${i.duration ? `<itunes:duration>${i.duration}</itunes:duration>` : ""}<enclosure url="${i.url.replace(/&/g, "&amp;")}" length="1000" type="audio/mpeg"/></item>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>${title}</title><link>https://example.test/</link><description>test feed</description>\n${body}\n</channel></rss>`;
}

/** The feed URLs a user is subscribed to (return_pods), sorted. */
export async function libraryFeeds(url: string, user: { id: number; key: string }): Promise<string[]> {
  return (await api(url).get(`/api/data/return_pods/${user.id}`).set("Api-Key", user.key)).body.pods.map((p: any) => p.feed_url).sort();
}

/** A user's episode of a feed by its enclosure URL, as podcast_episodes lists it; null when not subscribed or not there. */
export async function episodeByUrl(url: string, user: { id: number; key: string }, feedUrl: string, enclosureUrl: string): Promise<any> {
  const get = (p: string, query: Record<string, unknown> = {}) => api(url).get(p).query(query).set("Api-Key", user.key);
  const pod = (await get(`/api/data/return_pods/${user.id}`)).body.pods.find((p: any) => p.feed_url === feedUrl);
  if (!pod) return null;
  const episodes = (await get("/api/data/podcast_episodes", { user_id: user.id, podcast_id: pod.podcast_id })).body.episodes;
  return episodes.find((e: any) => e.episodeurl === enclosureUrl) ?? null;
}

/**
 * Feeds `${name}-0.xml` to `${name}-${count - 1}.xml` on a loopback server, each with episodes 1 and 2 (guid
 * `${name}-n-e`, 3000 s, enclosure /media/`${name}-n-e`.mp3). Returns the URL makers of a feed and an episode.
 */
export function serveTwoEpisodeFeeds(loop: Loopback, name: string, count: number) {
  const feed = (n: number) => `${loop.url}/${name}-${n}.xml`;
  const episode = (n: number, e: number) => `${loop.url}/media/${name}-${n}-${e}.mp3`;
  for (let n = 0; n < count; n++) {
    const items = [1, 2].map((e) => ({
      title: `${name} ${n} episode ${e}`,
      guid: `${name}-${n}-${e}`,
      url: episode(n, e),
      date: `2024-0${e}-01T00:00:00Z`,
      duration: 3000,
    }));
    loop.route(`/${name}-${n}.xml`, { body: rssFeed(`${name} ${n}`, items) });
  }
  return { feed, episode };
}
