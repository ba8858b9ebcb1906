/**
 * PinePods' mobile app (mobile/lib, Dart) as a second client of /api/data: the calls a phone makes every day,
 * sent as the app sends them (its headers, is_youtube, its query strings and bodies), and each answer read the way
 * the app reads it: the sign-in of LoginService.login, the podcast list, playing, playlists, podcast search, the
 * home and statistics pages. Dart's casts fail on a wrong type (`as int` on 1.5, a List where it casts Map) while
 * `?? default` tolerates a missing key or null, so what is checked is the type of every key the app reads when the
 * key is there, and the keys the app needs are there. docs/pinepods-client-calls.md, second table, lists every
 * mobile call and what it reads.
 */
import { api, basic, expectErrorBody } from "../helpers/client";
import { startLibrary, Library } from "../helpers/library";
import { rssFeed } from "../helpers/podcasts";
import { startProviders, useProviders } from "../helpers/providers";
import type { Loopback } from "../helpers/loopback";
import { config } from "../../shared/config";

type Cast = "int" | "num" | "String" | "bool" | "Map" | "Map<String,String>" | "List" | "List<int>" | "List<String>";
const DART_TYPES: Record<Cast, (v: unknown) => boolean> = {
  int: (v) => Number.isInteger(v),
  num: (v) => typeof v === "number",
  String: (v) => typeof v === "string",
  bool: (v) => typeof v === "boolean",
  Map: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  "Map<String,String>": (v) => typeof v === "object" && !Array.isArray(v) && Object.values(v as object).every((x) => typeof x === "string"),
  List: (v) => Array.isArray(v),
  "List<int>": (v) => Array.isArray(v) && v.every((x) => Number.isInteger(x)),
  "List<String>": (v) => Array.isArray(v) && v.every((x) => typeof x === "string"),
};
/** A Dart read: the value must have the cast's type unless it is null or absent (the app gives a default then). */
function dartMismatches(obj: Record<string, unknown>, casts: Record<string, Cast>): string[] {
  return Object.entries(casts)
    .filter(([k, cast]) => obj[k] != null && !DART_TYPES[cast](obj[k]))
    .map(([k, cast]) => `${k}: ${JSON.stringify(obj[k])} is not ${cast}`);
}
/** Keys the app reads without a default (`as int`, a required field): each must be there, not null. */
function missing(obj: Record<string, unknown>, keys: string[]): string[] {
  return keys.filter((k) => obj[k] == null);
}
/** The user agent of LoginService's requests. */
const MOBILE_AGENT = "PinePods Mobile/1.0";

/** PinepodsEpisode (entities/pinepods_episode.dart and the list readers of pinepods_service.dart). */
const EPISODE: Record<string, Cast> = {
  podcastname: "String",
  episodetitle: "String",
  episodepubdate: "String",
  episodedescription: "String",
  episodeartwork: "String",
  episodeurl: "String",
  episodeduration: "int",
  listenduration: "int",
  episodeid: "int",
  completed: "bool",
  saved: "bool",
  queued: "bool",
  downloaded: "bool",
  is_youtube: "bool",
  podcastid: "int",
  listendate: "String",
  savedate: "String",
};
/** PodcastDetailsData.fromJson (pinepods_service.dart). */
const DYNAMIC_DETAILS: Record<string, Cast> = {
  podcastid: "int",
  podcastname: "String",
  feedurl: "String",
  description: "String",
  author: "String",
  artworkurl: "String",
  explicit: "bool",
  episodecount: "int",
  categories: "Map<String,String>",
  websiteurl: "String",
  podcastindexid: "int",
  is_youtube: "bool",
};

/** The Podcast getUserPodcasts and getUserPodcastsWithCategories build of a return_pods item. */
const PODCAST: Record<string, Cast> = {
  podcastid: "int",
  podcastname: "String",
  description: "String",
  artworkurl: "String",
  feedurl: "String",
  websiteurl: "String",
  author: "String",
  is_favorite: "bool",
  episodecount: "int",
};
/** PlaylistData.fromJson and Playlist.fromJson (pinepods_service.dart, entities/home_data.dart). */
const PLAYLIST: Record<string, Cast> = {
  playlist_id: "int",
  user_id: "int",
  name: "String",
  description: "String",
  is_system_playlist: "bool",
  podcast_ids: "List<int>",
  include_unplayed: "bool",
  include_partially_played: "bool",
  include_played: "bool",
  min_duration: "int",
  max_duration: "int",
  sort_order: "String",
  group_by_podcast: "bool",
  max_episodes: "int",
  last_updated: "String",
  created: "String",
  episode_count: "int",
  icon_name: "String",
};
/** PinepodsPodcast.fromJson (entities/pinepods_search.dart): a directory feed of proxy_search. */
const DIRECTORY_FEED: Record<string, Cast> = {
  id: "int",
  title: "String",
  url: "String",
  originalUrl: "String",
  link: "String",
  description: "String",
  author: "String",
  ownerName: "String",
  image: "String",
  artwork: "String",
  lastUpdateTime: "int",
  categories: "Map<String,String>",
  explicit: "bool",
  episodeCount: "int",
};
/** PinepodsITunesPodcast.fromJson: a store result of proxy_search. */
const STORE_RESULT: Record<string, Cast> = {
  wrapperType: "String",
  kind: "String",
  collectionId: "int",
  trackId: "int",
  artistName: "String",
  trackName: "String",
  collectionViewUrl: "String",
  feedUrl: "String",
  artworkUrl100: "String",
  releaseDate: "String",
  genres: "List<String>",
  collectionExplicitness: "String",
  trackCount: "int",
};
/** UserStats.fromJson (entities/user_stats.dart). */
const USER_STATS: Record<string, Cast> = {
  UserCreated: "String",
  PodcastsPlayed: "int",
  TimeListened: "int",
  PodcastsAdded: "int",
  EpisodesSaved: "int",
  EpisodesDownloaded: "int",
  GpodderUrl: "String",
  Pod_Sync_Type: "String",
};
/** HomeEpisode.fromJson and HomePodcast.fromJson (entities/home_data.dart). */
const HOME_EPISODE: Record<string, Cast> = {
  episodeid: "int",
  podcastid: "int",
  episodetitle: "String",
  episodedescription: "String",
  episodeurl: "String",
  episodeartwork: "String",
  episodepubdate: "String",
  episodeduration: "int",
  completed: "bool",
  podcastname: "String",
  is_youtube: "bool",
  listenduration: "int",
  saved: "bool",
  queued: "bool",
  downloaded: "bool",
};
const HOME_PODCAST: Record<string, Cast> = {
  podcastid: "int",
  podcastname: "String",
  podcastindexid: "int",
  artworkurl: "String",
  author: "String",
  description: "String",
  episodecount: "int",
  feedurl: "String",
  websiteurl: "String",
  explicit: "bool",
  is_youtube: "bool",
  play_count: "int",
  total_listen_time: "int",
};

describe("PinePods mobile app reading this server's answers", () => {
  let lib: Library;
  let peer: Loopback;
  const saved = { ...config };
  const uid = () => lib.users.alice.id;
  const http = () => api(lib.server.url);
  const episodesOf = (items: Record<string, unknown>[]) => items.flatMap((e) => dartMismatches(e, EPISODE));

  beforeAll(async () => {
    lib = await startLibrary();
    // The search service's providers, on loopback (read at call time: set after the start).
    peer = await startProviders();
    useProviders(peer);
  });
  afterAll(async () => {
    await lib?.stop();
    await peer?.close();
    Object.assign(config, saved);
  });

  test("sign-in as LoginService.login does it: pinepods_check, get_key, verify_key, get_user, user_details_id, config", async () => {
    const check = await http().get("/api/pinepods_check").set("User-Agent", MOBILE_AGENT);
    expect(check.status).toBe(200);
    expect(check.body.pinepods_instance).toBe(true);
    // The documents' check answers the same, its own fields first.
    expect((await http().get("/api/service_check")).body).toEqual(check.body);
    expect(Object.keys(check.body)).toEqual(["status_code", "service_instance", "pinepods_instance"]);

    const login = await http().get("/api/data/get_key").set("Authorization", basic("alice", "a long password")).set("User-Agent", MOBILE_AGENT);
    expect(login.status).toBe(200);
    expect(login.body.status).not.toBe("mfa_required");
    const key: string = login.body.retrieved_key;
    expect(typeof key).toBe("string");
    const withKey = (path: string) => http().get(path).set("Api-Key", key).set("User-Agent", MOBILE_AGENT);
    expect((await withKey("/api/data/verify_key")).body.status).toBe("success");
    const user = await withKey("/api/data/get_user");
    expect(user.body).toMatchObject({ status: "success", retrieved_id: uid() });
    const details = await withKey(`/api/data/user_details_id/${uid()}`);
    expect(details.body).toMatchObject({ UserID: uid(), Username: "alice" });
    expect(dartMismatches(details.body, { UserID: "int", Fullname: "String", Username: "String", Email: "String" })).toEqual([]);
    const cfg = await withKey("/api/data/config");
    expect(cfg.status).toBe(200);
    const strings = ["api_url", "proxy_url", "proxy_host", "proxy_port", "proxy_protocol", "reverse_proxy", "people_url"];
    expect(dartMismatches(cfg.body, Object.fromEntries(strings.map((k) => [k, "String"])))).toEqual([]);

    // The statistics page's version: get_service_version's answer under the app's name.
    const version = await withKey("/api/data/get_pinepods_version");
    expect(version.status).toBe(200);
    expect(typeof version.body.data).toBe("string");
    expect(version.body).toEqual((await withKey("/api/data/get_service_version")).body);
    expectErrorBody(await http().get("/api/data/get_pinepods_version"), 401);
  });

  test("X-Api-Key is read wherever Api-Key is (PinePods' web client sends it on its task list)", async () => {
    const key = lib.users.alice.key;
    expect((await http().get("/api/data/verify_key").set("X-Api-Key", key)).body.status).toBe("success");
    expect((await http().get("/api/tasks/active").query({ user_id: uid() }).set("X-Api-Key", key)).status).toBe(200);
    expect((await http().get(`/api/data/return_pods/${uid()}`).set("X-Api-Key", key)).status).toBe(200);
    expectErrorBody(await http().get("/api/data/verify_key").set("X-Api-Key", "not-a-key"), 401);
    // Api-Key wins when both are sent.
    expect((await http().get("/api/data/verify_key").set("Api-Key", key).set("X-Api-Key", "not-a-key")).status).toBe(200);
    expectErrorBody(await http().get("/api/data/verify_key").set("Api-Key", "not-a-key").set("X-Api-Key", key), 401);
  });

  test("podcast list: return_pods read as getUserPodcasts and getUserPodcastsWithCategories build their Podcast", async () => {
    expect(
      (
        await http()
          .put("/api/data/podcast/toggle_favorite")
          .set("Api-Key", lib.users.alice.key)
          .send({ user_id: uid(), podcast_id: lib.shared, is_favorite: true })
      ).status,
    ).toBe(200);
    const res = await lib.get(`/api/data/return_pods/${uid()}`, "alice");
    expect(res.status).toBe(200);
    const pods: Record<string, any>[] = res.body.pods;
    expect(pods.map((p) => p.podcastid).sort()).toEqual([lib.shared, lib.own].sort());
    for (const pod of pods) {
      // `podData['podcastid'] as int` in the categories variant: there, and an int.
      expect(missing(pod, ["podcastid", "podcastname", "feedurl"])).toEqual([]);
      expect(dartMismatches(pod, PODCAST)).toEqual([]);
      // The documents' names stay, first, and tell the same.
      const keys = Object.keys(pod);
      expect(keys.indexOf("podcast_id")).toBeLessThan(keys.indexOf("podcastid"));
      expect(pod).toMatchObject({
        podcastid: pod.podcast_id,
        podcastname: pod.title,
        feedurl: pod.feed_url,
        artworkurl: pod.artwork_url,
        websiteurl: pod.website_url,
        episodecount: pod.episode_count,
      });
      // categories: the documents' array, which the categories variant reads as no categories (neither Map nor String).
      expect(Array.isArray(pod.categories)).toBe(true);
      // The web client's Podcast: explicit a bool, podcastindexid an integer (its i32 refuses null).
      expect(dartMismatches(pod, { explicit: "bool", podcastindexid: "int" })).toEqual([]);
      expect(missing(pod, ["explicit", "podcastindexid"])).toEqual([]);
    }
    expect(pods.find((p) => p.podcastid === lib.shared)).toMatchObject({
      podcastname: "Shared Show",
      feedurl: lib.feeds.url + "/shared.xml",
      is_favorite: true,
      episodecount: 10,
    });
    expect(pods.find((p) => p.podcastid === lib.own)).toMatchObject({ podcastname: "Alpha Own Show", is_favorite: false });
  });

  test("podcast page: get_podcast_id's podcast_id (podcast_tile) and get_podcast_details' details (podcast_nav)", async () => {
    const found = await lib.get("/api/data/get_podcast_id", "alice", {
      user_id: uid(),
      podcast_feed: lib.feeds.url + "/shared.xml",
      podcast_title: "Shared Show",
    });
    expect(found.status).toBe(200);
    expect(found.body).toEqual({ episodes: lib.shared, podcast_id: lib.shared });
    const res = await lib.get("/api/data/get_podcast_details", "alice", { podcast_id: lib.shared, user_id: uid() });
    expect(res.status).toBe(200);
    expect(res.body.podcast).toMatchObject({ podcast_id: lib.shared, title: "Shared Show" });
    const details = res.body.details;
    expect(details).toMatchObject({
      podcastid: lib.shared,
      podcastname: "Shared Show",
      feedurl: lib.feeds.url + "/shared.xml",
      episodecount: 10,
      explicit: false,
      userid: uid(),
    });
    expect(dartMismatches(details, { ...DYNAMIC_DETAILS, userid: "int" })).toEqual([]);
  });

  test("play: get_podcast_id_from_ep/{id} as playPinepodsEpisode asks it (no user_id), then that podcast's play details", async () => {
    const ask = (episode: number | string, who = "alice") =>
      http().get(`/api/data/get_podcast_id_from_ep/${episode}`).set("Api-Key", lib.users[who].key).set("Content-Type", "application/json");
    const res = await ask(lib.ids["Hour"]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ podcast_id: lib.shared });
    expect((await ask(lib.ids["Hour"], "bob")).body).toEqual({ podcast_id: lib.shared });
    // An episode of a podcast bob does not have, an unknown one, not an id, no key.
    expectErrorBody(await ask(lib.ids["Own 00"], "bob"), 404);
    expectErrorBody(await ask(99999999), 404);
    expectErrorBody(await ask("abc"), 400);
    expectErrorBody(await http().get(`/api/data/get_podcast_id_from_ep/${lib.ids["Hour"]}`), 401);
    const play = await lib.post("/api/data/get_play_episode_details", "alice", { user_id: uid(), podcast_id: res.body.podcast_id, is_youtube: false });
    expect(play.status).toBe(200);
    expect(dartMismatches(play.body, { playback_speed: "num", start_skip: "int", end_skip: "int" })).toEqual([]);
  });

  test("playlists: made from the app's form (sort order newest_first, podcast_ids []), listed, read, deleted with POST", async () => {
    const form = {
      user_id: uid(),
      name: "Phone list",
      description: null,
      podcast_ids: [],
      include_unplayed: true,
      include_partially_played: true,
      include_played: false,
      min_duration: null,
      max_duration: null,
      sort_order: "newest_first",
      group_by_podcast: false,
      max_episodes: null,
      icon_name: "ph-playlist",
      play_progress_min: null,
      play_progress_max: null,
      time_filter_hours: null,
    };
    expect((await lib.post("/api/data/create_playlist", "alice", form)).status).toBe(200);
    const list = async () => (await lib.get("/api/data/get_playlists", "alice", { user_id: uid() })).body.playlists as Record<string, any>[];
    const before = await list();
    for (const p of before) expect(dartMismatches(p, PLAYLIST)).toEqual([]);
    const mine = before.find((p) => p.name === "Phone list")!;
    // The documented order of the same meaning, and no podcast filter: the form's "every podcast".
    expect(mine).toMatchObject({ sort_order: "date_desc", podcast_ids: null, is_system_playlist: false, icon_name: "ph-playlist" });
    const page = await lib.get("/api/data/get_playlist_episodes", "alice", { user_id: uid(), playlist_id: mine.playlist_id, limit: 50, offset: 0 });
    expect(page.body.total).toBeGreaterThan(0);
    const dates: string[] = page.body.episodes.map((e: { episodepubdate: string }) => e.episodepubdate);
    expect(dates).toEqual([...dates].sort().reverse());

    // The form's other orders.
    for (const [sent, stored] of [
      ["oldest_first", "date_asc"],
      ["shortest_first", "duration_asc"],
      ["longest_first", "duration_desc"],
    ]) {
      const made = await lib.post("/api/data/create_playlist", "alice", { ...form, name: sent, sort_order: sent });
      expect((await list()).find((p) => p.playlist_id === made.body.playlist_id)).toMatchObject({ sort_order: stored });
      expect((await lib.post("/api/data/delete_playlist", "alice", { user_id: uid(), playlist_id: made.body.playlist_id })).status).toBe(200);
    }
    expectErrorBody(await lib.post("/api/data/create_playlist", "alice", { ...form, sort_order: "sideways" }), 400);

    // deletePlaylist: POST with user_id and playlist_id.
    expectErrorBody(await lib.post("/api/data/delete_playlist", "bob", { user_id: uid(), playlist_id: mine.playlist_id }), 403);
    expect((await lib.post("/api/data/delete_playlist", "alice", { user_id: uid(), playlist_id: mine.playlist_id })).status).toBe(200);
    expect((await list()).some((p) => p.playlist_id === mine.playlist_id)).toBe(false);
    expectErrorBody(await lib.post("/api/data/delete_playlist", "alice", { user_id: uid(), playlist_id: mine.playlist_id }), 404);
    const system = before.find((p) => p.is_system_playlist)!;
    expectErrorBody(await lib.post("/api/data/delete_playlist", "alice", { user_id: uid(), playlist_id: system.playlist_id }), 403);
    expectErrorBody(await lib.post("/api/data/delete_playlist", "alice", { user_id: uid() }), 400);
  });

  test("podcast search: proxy_search as searchPodcasts calls it, read as PinepodsSearchResult", async () => {
    const search = (query: Record<string, string>) => http().get("/api/data/proxy_search").query(query).set("Api-Key", lib.users.alice.key);
    const asked = peer.requests.length;
    const directory = await search({ query: "batman university", index: "podcast_index" });
    expect(directory.status).toBe(200);
    expect(dartMismatches(directory.body, { status: "String", resultCount: "int", feeds: "List", results: "List" })).toEqual([]);
    expect(directory.body.feeds.length).toBeGreaterThan(0);
    for (const feed of directory.body.feeds) {
      expect(missing(feed, ["id"])).toEqual([]);
      expect(dartMismatches(feed, DIRECTORY_FEED)).toEqual([]);
    }
    expect(directory.body.feeds[0]).toMatchObject({ id: 75075, title: "Batman University" });
    // The search service asked the directory provider.
    expect(peer.requests.length).toBeGreaterThan(asked);

    const store = await search({ query: "batman university", index: "itunes" });
    expect(store.status).toBe(200);
    expect(dartMismatches(store.body, { resultCount: "int", results: "List" })).toEqual([]);
    expect(store.body.results.length).toBeGreaterThan(0);
    for (const result of store.body.results) expect(dartMismatches(result, STORE_RESULT)).toEqual([]);

    // The web client's other searches: a person (its items), video channels.
    const person = await search({ query: "adam curry", index: "podcast_index", search_type: "person" });
    expect(person.status).toBe(200);
    expect(Array.isArray(person.body.items)).toBe(true);
    const channels = await search({ query: "pinchflat", index: "youtube" });
    expect(channels.status).toBe(200);
    expect(channels.body.results[0]).toMatchObject({ channelId: expect.any(String), name: expect.any(String) });

    // A provider's failure and bad input are JSON errors of this server.
    expectErrorBody(await search({ query: "ratelimit", index: "itunes" }), 503);
    expectErrorBody(await search({ query: "batman", index: "sideways" }), 400);
    expectErrorBody(await search({ index: "podcast_index" }), 400);
    expectErrorBody(await http().get("/api/data/proxy_search").query({ query: "batman", index: "itunes" }), 401);
  });

  test("statistics and home pages: get_stats and home_overview by the names UserStats and HomeOverview read", async () => {
    const ep = lib.ids["Half"];
    await lib.post("/api/data/record_podcast_history", "alice", { episode_id: ep, episode_pos: 120.5, user_id: uid(), is_youtube: false });
    expect((await lib.post("/api/data/queue_pod", "alice", { episode_id: lib.ids["Tiny"], user_id: uid(), is_youtube: false })).status).toBe(200);
    expect((await http().put(`/api/data/increment_listen_time/${uid()}`).set("Api-Key", lib.users.alice.key)).status).toBe(200);
    const stats = await lib.get("/api/data/get_stats", "alice", { user_id: uid() });
    expect(stats.status).toBe(200);
    expect(dartMismatches(stats.body, USER_STATS)).toEqual([]);
    const s = stats.body;
    expect(Object.keys(s)[0]).toBe("total_listen_time");
    expect(s).toMatchObject({
      PodcastsAdded: 2,
      PodcastsPlayed: s.episodes_played,
      TimeListened: Math.floor(s.total_listen_time / 60),
      EpisodesSaved: s.episodes_saved,
      EpisodesDownloaded: s.episodes_downloaded,
      Pod_Sync_Type: "None",
    });
    expect(s.TimeListened).toBeGreaterThanOrEqual(2);
    expect(Date.now() - new Date(s.UserCreated).getTime()).toBeLessThan(3_600_000);

    const home = await lib.get("/api/data/home_overview", "alice", { user_id: uid() });
    expect(home.status).toBe(200);
    const h = home.body;
    expect(
      dartMismatches(h, {
        recent_episodes: "List",
        in_progress_episodes: "List",
        queue_preview: "List",
        top_podcasts: "List",
        saved_count: "int",
        downloaded_count: "int",
        queue_count: "int",
        weekly_stats: "Map",
      }),
    ).toEqual([]);
    for (const e of [...h.recent_episodes, ...h.in_progress_episodes, ...h.queue_preview]) expect(dartMismatches(e, HOME_EPISODE)).toEqual([]);
    expect(h.recent_episodes[0]).toMatchObject({
      episode_id: ep,
      episode_title: "Half",
      episodeid: ep,
      episodetitle: "Half",
      podcastid: lib.shared,
      podcastname: "Shared Show",
      listenduration: 120,
    });
    expect(h.in_progress_episodes.map((e: { episodeid: number }) => e.episodeid)).toContain(ep);
    expect(h.top_podcasts[0]).toMatchObject({ podcastid: lib.shared, podcastname: "Shared Show" });
    for (const p of h.top_podcasts) expect(dartMismatches(p, HOME_PODCAST)).toEqual([]);
    expect(dartMismatches(h.weekly_stats, { seconds_listened: "int", episodes_completed: "int" })).toEqual([]);
    expect(h.weekly_stats.seconds_listened).toBeGreaterThanOrEqual(120);
    const queue = await lib.get("/api/data/get_queued_episodes", "alice", { user_id: uid() });
    expect(h.queue_count).toBe(queue.body.data.length);
    expect(h.queue_preview.length).toBeGreaterThan(0);
    expect(h.queue_preview.map((e: { episodeid: number }) => e.episodeid)).toEqual(queue.body.data.slice(0, 5).map((e: { episodeid: number }) => e.episodeid));
    expect(h.saved_count).toBe(s.episodes_saved);

    // The history's titles under the app's name too.
    const history = await lib.get(`/api/data/user_history/${uid()}`, "alice", { limit: 50, offset: 0 });
    expect(history.body.data.length).toBeGreaterThan(0);
    for (const item of history.body.data) expect(item.episodetitle).toBe(item.episodename);
  });

  test("values the clients send beside the documented ones: theme names, date format codes", async () => {
    const put = (path: string, body: object) => http().put(path).set("Api-Key", lib.users.alice.key).send(body);
    for (const theme of ["Nordic", "Light", "Hot Dog Stand - MY EYES", "dark"]) {
      const set = await put("/api/data/user/set_theme", { user_id: uid(), new_theme: theme });
      expect(set.status).toBe(200);
      expect(set.body.message).toEqual(expect.any(String));
      // Stored as sent: the app looks its theme up by that name.
      expect((await lib.get(`/api/data/get_theme/${uid()}`, "alice")).body).toEqual({ theme });
    }
    expectErrorBody(await put("/api/data/user/set_theme", { user_id: uid(), new_theme: "nordic" }), 400);
    const formats = [
      ["EUR", "DD/MM/YYYY"],
      ["USA", "MM/DD/YYYY"],
      ["JIS", "YYYY-MM-DD"],
      ["JUL", "YYYY-MM-DD"],
      ["MDY", "MM/DD/YYYY"],
      ["DMY", "DD/MM/YYYY"],
      ["ISO", "YYYY-MM-DD"],
    ];
    for (const [code, stored] of formats) {
      expect((await put("/api/data/update_date_format", { user_id: uid(), date_format: code })).status).toBe(200);
      expect((await lib.get("/api/data/get_time_info", "alice", { user_id: uid() })).body.date_format).toBe(stored);
    }
    expectErrorBody(await put("/api/data/update_date_format", { user_id: uid(), date_format: "eur" }), 400);
  });

  test("episode lists of every day: each key PinepodsEpisode reads has the type it casts to", async () => {
    const ep = lib.ids["Quarter"];
    // The player writes fractional positions; the lists answer whole seconds (`as int` fails on 1.5).
    await lib.post("/api/data/record_podcast_history", "alice", { episode_id: ep, episode_pos: 12.5, user_id: uid(), is_youtube: false });
    await lib.post("/api/data/record_listen_duration", "alice", { episode_id: ep, user_id: uid(), listen_duration: 33.7, is_youtube: false });
    for (const path of ["queue_pod", "save_episode"]) {
      expect((await lib.post(`/api/data/${path}`, "alice", { episode_id: ep, user_id: uid(), is_youtube: false })).status).toBe(200);
    }
    const lists = {
      return_episodes: (await lib.get(`/api/data/return_episodes/${uid()}`, "alice", { limit: 50, offset: 0 })).body.episodes,
      queue: (await lib.get("/api/data/get_queued_episodes", "alice", { user_id: uid() })).body.data,
      saved: (await lib.get(`/api/data/saved_episode_list/${uid()}`, "alice", { limit: 50, offset: 0, sort_by: "date", sort_order: "desc", filter: "all" }))
        .body.saved_episodes,
      history: (await lib.get(`/api/data/user_history/${uid()}`, "alice", { limit: 50, offset: 0, sort_by: "date", sort_order: "desc", filter: "all" })).body
        .data,
      podcast_episodes: (await lib.get("/api/data/podcast_episodes", "alice", { user_id: uid(), podcast_id: lib.shared })).body.episodes,
    };
    for (const [name, items] of Object.entries(lists)) {
      expect([name, items.length > 0]).toEqual([name, true]);
      expect([name, episodesOf(items)]).toEqual([name, []]);
    }
    expect(lists.queue.find((e: { episodeid: number }) => e.episodeid === ep)).toMatchObject({ episodeid: ep, listenduration: 33, queued: true, saved: true });
  });

  test("get_episode_metadata: saved, queued and downloaded as is_saved, is_queued, is_downloaded", async () => {
    const ep = lib.ids["Twenty"];
    await lib.post("/api/data/save_episode", "alice", { episode_id: ep, user_id: uid(), is_youtube: false });
    await lib.post("/api/data/queue_pod", "alice", { episode_id: ep, user_id: uid(), is_youtube: false });
    const res = await lib.post("/api/data/get_episode_metadata", "alice", { episode_id: ep, user_id: uid(), person_episode: false, is_youtube: false });
    expect(res.status).toBe(200);
    // getEpisodeMetadata reads is_saved, is_queued, is_downloaded (the web client takes them as aliases of saved, queued, downloaded).
    expect(res.body.episode).toMatchObject({ episodeid: ep, podcastid: lib.shared, is_saved: true, is_queued: true, is_downloaded: false });
    expect(dartMismatches(res.body.episode, EPISODE)).toEqual([]);
    const other = await lib.post("/api/data/get_episode_metadata", "alice", {
      episode_id: lib.ids["Long"],
      user_id: uid(),
      person_episode: false,
      is_youtube: false,
    });
    expect(other.body.episode).toMatchObject({ is_saved: false, is_queued: false, is_downloaded: false });
  });

  test("get_episode_id_ep_name: a bare integer, as both apps parse the body's text", async () => {
    const q = { user_id: uid(), episode_url: "https://media.test/shared/1.mp3", episode_title: "Quarter", is_youtube: false };
    const res = await lib.get("/api/data/get_episode_id_ep_name", "alice", q);
    expect(res.status).toBe(200);
    // mobile: int.tryParse(body.trim()); web: body.trim().parse::<i32>()
    expect(res.text.trim()).toBe(String(lib.ids["Quarter"]));
    expect((await lib.get("/api/data/get_episode_id_ep_name", "alice", { ...q, episode_url: "https://media.test/none.mp3" })).status).toBe(404);
  });

  test("get_podcast_details_dynamic: a feed without artwork or author, subscribed or not; categories as a map", async () => {
    lib.feeds.route("/bare.xml", {
      body: rssFeed("Bare Show", [{ title: "One", guid: "bare-1", url: "https://media.test/bare/1.mp3", date: new Date().toISOString(), duration: 60 }]),
    });
    const q = {
      user_id: uid(),
      podcast_title: "Shared Show",
      podcast_url: lib.feeds.url + "/shared.xml",
      podcast_index_id: 0,
      added: true,
      display_only: false,
    };
    const known = await lib.get("/api/data/get_podcast_details_dynamic", "alice", q);
    expect(known.status).toBe(200);
    expect(known.body).toMatchObject({ podcastid: lib.shared, podcastname: "Shared Show", author: "", artworkurl: "", categories: {} });
    expect(dartMismatches(known.body, DYNAMIC_DETAILS)).toEqual([]);
    const fetched = await lib.get("/api/data/get_podcast_details_dynamic", "alice", {
      ...q,
      podcast_title: "Bare Show",
      podcast_url: lib.feeds.url + "/bare.xml",
      added: false,
    });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toMatchObject({ podcastid: 0, podcastname: "Bare Show", author: "", artworkurl: "", episodecount: 1 });
    expect(dartMismatches(fetched.body, DYNAMIC_DETAILS)).toEqual([]);
  });

  test("playback: play details, next episode, playlists and Podcasting 2.0 data read as the app reads them", async () => {
    const details = await lib.post("/api/data/get_play_episode_details", "alice", { user_id: uid(), podcast_id: lib.shared, is_youtube: false });
    expect(dartMismatches(details.body, { playback_speed: "num", start_skip: "int", end_skip: "int" })).toEqual([]);
    const next = await lib.post("/api/data/get_next_podcast_episode", "alice", { episode_id: lib.ids["Long"], user_id: uid() });
    expect(next.status).toBe(200);
    expect(dartMismatches(next.body, EPISODE)).toEqual([]);
    const playlists = await lib.get("/api/data/get_playlists", "alice", { user_id: uid() });
    const playlist = playlists.body.playlists[0];
    expect(
      dartMismatches(playlist, {
        playlist_id: "int",
        user_id: "int",
        name: "String",
        description: "String",
        min_duration: "int",
        max_duration: "int",
        max_episodes: "int",
        episode_count: "int",
        icon_name: "String",
        created: "String",
        last_updated: "String",
      }),
    ).toEqual([]);
    const page = await lib.get("/api/data/get_playlist_episodes", "alice", { user_id: uid(), playlist_id: playlist.playlist_id, limit: 50, offset: 0 });
    expect(page.status).toBe(200);
    expect(episodesOf(page.body.episodes)).toEqual([]);
    const p20 = await lib.get("/api/data/fetch_podcasting_2_data", "alice", { episode_id: lib.ids["Quarter"], user_id: uid() });
    expect(p20.body).toMatchObject({ chapters: expect.any(Array), people: expect.any(Array), transcripts: expect.any(Array) });
  });
});
