/**
 * The sync server's answers exactly as gPodder's documentation gives them, read with gPodder's own client
 * library (python3-mygpoclient, test/helpers/mygpoclient-calls.py) where it can express the call, else over
 * plain HTTP: removals since 0, the simple API's podcast objects, and the play actions that stand for
 * positions and completions recorded here (with the episode's guid; a completion played to its end).
 */
import { config } from "../../shared/config";
import { api, asUsers } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { mygpoclient, MygpoCall } from "../helpers/mygpoclient";
import { createUsers, episodeByUrl, libraryFeeds, serveTwoEpisodeFeeds } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";
import { until } from "../helpers/wait";

const PASSWORD = "a long password"; // createUsers' password
const API_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/;
const sorted = (list: string[]) => [...list].sort();

/** A feed with everything gpodder.net's podcast object shows, and episodes of unknown duration. */
function richFeed(base: string): string {
  const items = [1, 2].map(
    (e) =>
      `<item><title>Rich ${e}</title><guid>rich-${e}</guid><pubDate>${new Date(`2024-0${e}-01T00:00:00Z`).toUTCString()}</pubDate><enclosure url="${base}/media/rich-${e}.mp3" length="1000" type="audio/mpeg"/></item>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>Rich Show</title><link>https://rich.example/</link><description>All about rich feeds</description><itunes:author>Ann Author</itunes:author><itunes:image href="https://rich.example/logo.jpg"/>\n${items.join("\n")}\n</channel></rss>`;
}

describe("sync server answers as gPodder's documentation gives them", () => {
  let server: TestServer;
  let feeds: Loopback;
  let u: Record<string, { id: number; key: string }>;
  let feed: (n: number) => string;
  let episodeUrl: (n: number, e: number) => string;
  const { post } = asUsers(() => ({ url: server.url, users: u }));
  const rich = () => `${feeds.url}/rich.xml`;
  const richEpisode = (e: number) => `${feeds.url}/media/rich-${e}.mp3`;
  const missing = () => `${feeds.url}/missing.xml`;
  const gpo = (calls: MygpoCall[], who = "alice") => mygpoclient(server.url, who, PASSWORD, calls);
  // As apps do: Basic once at login.json, then the session cookie.
  const sessions: Record<string, string> = {};
  const login = async (who: string) => {
    const res = await api(server.url).post(`/api/2/auth/${who}/login.json`).auth(who, PASSWORD);
    sessions[who] = String(res.headers["set-cookie"][0]).split(";")[0];
  };
  const sync = (p: string, who = "alice") => api(server.url).get(p).set("Cookie", sessions[who]);
  const library = (who = "alice") => libraryFeeds(server.url, u[who]);
  const podcastIdOf = async (url: string, who = "alice") =>
    (await api(server.url).get(`/api/data/return_pods/${u[who].id}`).set("Api-Key", u[who].key)).body.pods.find((p: any) => p.feed_url === url).podcast_id;
  const episodeId = async (feedUrl: string, enclosure: string, who = "alice") => (await episodeByUrl(server.url, u[who], feedUrl, enclosure)).episodeid;
  /** The actions received after `since` once there are `count` of them (raw HTTP: mygpoclient drops guid). */
  const actionsAfter = async (since: number, count = 1, who = "alice") => {
    let actions: any[] = [];
    await until(async () => (actions = (await sync(`/api/2/episodes/${who}.json?since=${since}`, who)).body.actions).length >= count, 10_000, 50);
    return actions;
  };

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0, syncInterval: 0, gpodderRetrySeconds: 0 });
    feeds = await startLoopback();
    ({ feed, episode: episodeUrl } = serveTwoEpisodeFeeds(feeds, "feed", 6));
    feeds.route("/rich.xml", { body: richFeed(feeds.url) });
    server = await startServer();
    u = await createUsers(server.url, ["alice", "bob", "carol"]);
    await login("alice");
  });
  afterAll(async () => {
    await server?.stop();
    await feeds?.close();
  });

  test("since=0 lists every feed by its last change, the removed ones in remove; a later since only what changed after it", async () => {
    const [first, , , readded] = await gpo([
      ["update_subscriptions", "phone", [feed(0), feed(1), feed(2), feed(3)], []],
      ["update_subscriptions", "laptop", [], [feed(1)]],
      // Removed and added again: in add only. Added and removed again: in remove only.
      ["update_subscriptions", "phone", [], [feed(2)]],
      ["update_subscriptions", "phone", [feed(2)], []],
      ["update_subscriptions", "phone", [feed(4)], []],
      ["update_subscriptions", "phone", [], [feed(4)]],
    ]);
    const [all, afterFirst, afterReadd] = await gpo([
      ["pull_subscriptions", "tablet", 0],
      ["pull_subscriptions", "tablet", first.since],
      ["pull_subscriptions", "tablet", readded.since],
    ]);
    expect([sorted(all.add), sorted(all.remove)]).toEqual([sorted([feed(0), feed(2), feed(3)]), sorted([feed(1), feed(4)])]);
    expect([afterFirst.add, sorted(afterFirst.remove)]).toEqual([[feed(2)], sorted([feed(1), feed(4)])]);
    expect([afterReadd.add, afterReadd.remove]).toEqual([[], [feed(4)]]);
    const [nothing] = await gpo([["pull_subscriptions", "tablet", all.since]]);
    expect([nothing.add, nothing.remove, nothing.since]).toEqual([[], [], all.since]);
    // The Nextcloud app's list is the same one.
    const nextcloud = (await sync("/index.php/apps/gpoddersync/subscriptions?since=0")).body;
    expect([sorted(nextcloud.add), sorted(nextcloud.remove), nextcloud.timestamp]).toEqual([sorted(all.add), sorted(all.remove), all.since]);
  });

  test("an upload naming stored feeds among new ones changes only the new ones; naming only stored ones changes nothing", async () => {
    const named = (n: string) => `${feeds.url}/named-${n}.xml`;
    const [stored] = await gpo([["update_subscriptions", "phone", [named("a")], []]], "carol");
    // New ones before and after the stored one: a batch insert meets it (on MongoDB after writing those before it).
    const [mixed] = await gpo([["update_subscriptions", "laptop", [named("b"), named("a"), named("c")], []]], "carol");
    await gpo([["update_subscriptions", "phone", [named("c"), named("a")], []]], "carol");
    const [sinceStored, sinceMixed, all] = await gpo(
      [
        ["pull_subscriptions", "tablet", stored.since],
        ["pull_subscriptions", "tablet", mixed.since],
        ["pull_subscriptions", "tablet", 0],
      ],
      "carol",
    );
    expect([sorted(sinceStored.add), sinceStored.remove]).toEqual([sorted([named("b"), named("c")]), []]);
    expect([sinceMixed.add, sinceMixed.remove]).toEqual([[], []]);
    expect(all.add).toEqual(expect.arrayContaining([named("a"), named("b"), named("c")]));
  });

  test("a feed removed here (web/API) is in remove since 0; added here again, in add only", async () => {
    await until(async () => (await library()).includes(feed(3)), 20_000, 100);
    const podcast_id = await podcastIdOf(feed(3));
    expect((await post("/api/data/remove_podcast_id", "alice", { user_id: u.alice.id, podcast_id })).status).toBe(200);
    await until(async () => (await sync("/api/2/subscriptions/alice/tablet.json?since=0")).body.remove.includes(feed(3)), 10_000, 50);
    const [removed] = await gpo([["pull_subscriptions", "tablet", 0]]);
    expect([sorted(removed.add), sorted(removed.remove)]).toEqual([sorted([feed(0), feed(2)]), sorted([feed(1), feed(3), feed(4)])]);
    expect((await post("/api/data/add_podcast", "alice", { podcast_values: { pod_feed_url: feed(3), user_id: u.alice.id } })).status).toBe(200);
    await until(async () => (await sync("/api/2/subscriptions/alice/tablet.json?since=0")).body.add.includes(feed(3)), 10_000, 50);
    const [readded, since] = await gpo([
      ["pull_subscriptions", "tablet", 0],
      ["pull_subscriptions", "tablet", removed.since],
    ]);
    expect([sorted(readded.add), sorted(readded.remove)]).toEqual([sorted([feed(0), feed(2), feed(3)]), sorted([feed(1), feed(4)])]);
    expect([since.add, since.remove]).toEqual([[feed(3)], []]);
  });

  test("the simple API's json of all subscriptions: gpodder.net's podcast objects from the catalogue here; the device's json stays a list of URLs", async () => {
    await gpo([["update_subscriptions", "phone", [rich(), missing()], []]]);
    expect((await post("/api/data/add_podcast", "bob", { podcast_values: { pod_feed_url: rich(), user_id: u.bob.id } })).status).toBe(200);
    const subscribed = sorted([feed(0), feed(2), feed(3), rich(), missing()]);
    await until(async () => JSON.stringify(await library()) === JSON.stringify(sorted([feed(0), feed(2), feed(3), rich()])), 20_000, 100);
    const res = await sync("/subscriptions/alice.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    const plain = (n: number) => ({
      url: feed(n),
      title: `feed ${n}`,
      author: "",
      description: "test feed",
      subscribers: 1,
      logo_url: null,
      scaled_logo_url: null,
      website: "https://example.test/",
      mygpo_link: "",
    });
    expect([...res.body].sort((a: any, b: any) => (a.url < b.url ? -1 : 1))).toEqual(
      [
        plain(0),
        plain(2),
        plain(3),
        {
          url: rich(),
          title: "Rich Show",
          author: "Ann Author",
          description: "All about rich feeds",
          subscribers: 2,
          logo_url: "https://rich.example/logo.jpg",
          scaled_logo_url: "https://rich.example/logo.jpg",
          website: "https://rich.example/",
          mygpo_link: "",
        },
        // Not subscribed here (it cannot be fetched): blanks.
        { url: missing(), title: "", author: "", description: "", subscribers: 0, logo_url: null, scaled_logo_url: null, website: "", mygpo_link: "" },
      ].sort((a, b) => (a.url < b.url ? -1 : 1)),
    );
    const urls: string[] = res.body.map((p: any) => p.url);
    expect(sorted(urls)).toEqual(subscribed);
    // txt and opml as before: the same feeds in the same order.
    expect((await sync("/subscriptions/alice.txt")).text).toBe(urls.map((url) => `${url}\n`).join(""));
    const opml = (await sync("/subscriptions/alice.opml")).text;
    expect([...opml.matchAll(/xmlUrl="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, "&"))).toEqual(urls);
    // A device's json is a list of feed URLs (gPodder's SimpleClient reads it so).
    expect((await sync("/subscriptions/alice/phone.json")).body).toEqual(urls);
    expect(await gpo([["get_subscriptions", "phone"]])).toEqual([urls]);
  });

  test("a position recorded here is a play action with the episode's guid, started 0 and total; a completion is played to its end", async () => {
    const since = (await sync("/api/2/episodes/alice.json")).body.timestamp;
    expect(
      (
        await post("/api/data/record_listen_duration", "alice", {
          episode_id: await episodeId(feed(0), episodeUrl(0, 1)),
          user_id: u.alice.id,
          listen_duration: 420,
        })
      ).status,
    ).toBe(200);
    // As gPodder's client library reads it (it has no guid), and as the API answers it.
    const read = {
      podcast: feed(0),
      episode: episodeUrl(0, 1),
      device: "podcast-server",
      action: "play",
      timestamp: expect.stringMatching(API_TIME),
      started: 0,
      position: 420,
      total: 3000,
    };
    const played = { ...read, guid: "feed-0-1" };
    expect(await actionsAfter(since)).toEqual([played]);
    const [got] = await gpo([["download_episode_actions", since]]);
    expect(got.actions).toEqual([read]);
    // The Nextcloud app's form: upper case, no device (toEqual: an undefined key is an absent one), the same numbers and guid.
    expect((await sync(`/index.php/apps/gpoddersync/episode_action?since=${since}`)).body.actions).toEqual([{ ...played, device: undefined, action: "PLAY" }]);
    expect(
      (await post("/api/data/mark_episode_completed", "alice", { episode_id: await episodeId(feed(0), episodeUrl(0, 1)), user_id: u.alice.id })).status,
    ).toBe(200);
    expect(await actionsAfter(got.since)).toEqual([{ ...played, position: 3000, total: 3000 }]);
    expect((await gpo([["download_episode_actions", got.since]]))[0].actions).toEqual([{ ...read, position: 3000, total: 3000 }]);
  });

  test("an episode of unknown duration: its position goes alone (started and total come together); completed, its position is its total", async () => {
    const since = (await sync("/api/2/episodes/alice.json")).body.timestamp;
    const episode_id = await episodeId(rich(), richEpisode(1));
    await post("/api/data/record_listen_duration", "alice", { episode_id, user_id: u.alice.id, listen_duration: 100 });
    const position = {
      podcast: rich(),
      episode: richEpisode(1),
      guid: "rich-1",
      device: "podcast-server",
      action: "play",
      timestamp: expect.stringMatching(API_TIME),
      position: 100,
    };
    expect(await actionsAfter(since)).toEqual([position]);
    const next = (await sync("/api/2/episodes/alice.json")).body.timestamp;
    await post("/api/data/mark_episode_completed", "alice", { episode_id, user_id: u.alice.id });
    expect(await actionsAfter(next)).toEqual([{ ...position, started: 0, total: 100 }]);
    const [got] = await gpo([["download_episode_actions", since]]);
    expect(got.actions.map((a: any) => [a.started, a.position, a.total])).toEqual([
      [undefined, 100, undefined],
      [0, 100, 100],
    ]);
  });

  test("a user's first sync receives the library's positions and completions with guids", async () => {
    const added = await post("/api/data/add_podcast", "bob", { podcast_values: { pod_feed_url: feed(5), user_id: u.bob.id } });
    expect(added.status).toBe(200);
    await post("/api/data/record_listen_duration", "bob", {
      episode_id: await episodeId(feed(5), episodeUrl(5, 1), "bob"),
      user_id: u.bob.id,
      listen_duration: 600,
    });
    // Listened to, then completed (seeding sends what was listened to: a completion alone has no time here).
    const second = await episodeId(feed(5), episodeUrl(5, 2), "bob");
    await post("/api/data/record_listen_duration", "bob", { episode_id: second, user_id: u.bob.id, listen_duration: 2000 });
    await post("/api/data/mark_episode_completed", "bob", { episode_id: second, user_id: u.bob.id });
    const [subs, got] = await gpo(
      [
        ["pull_subscriptions", "phone", 0],
        ["download_episode_actions", 0],
      ],
      "bob",
    );
    expect([sorted(subs.add), subs.remove]).toEqual([sorted([feed(5), rich()]), []]);
    const seeded = (e: number, position: number) => ({
      podcast: feed(5),
      episode: episodeUrl(5, e),
      device: "podcast-server",
      action: "play",
      timestamp: expect.stringMatching(API_TIME),
      started: 0,
      position,
      total: 3000,
    });
    const byEpisode = (a: any, b: any) => (a.episode < b.episode ? -1 : 1);
    expect([...got.actions].sort(byEpisode)).toEqual([seeded(1, 600), seeded(2, 3000)]);
    await login("bob");
    expect((await actionsAfter(0, 2, "bob")).sort(byEpisode)).toEqual([
      { ...seeded(1, 600), guid: "feed-5-1" },
      { ...seeded(2, 3000), guid: "feed-5-2" },
    ]);
  });
});
