/**
 * PinePods' mobile app (mobile/lib, Dart) as a second client of /api/data: the calls a phone makes every day,
 * sent as the app sends them (is_youtube, its query strings), and each answer read the way the app reads it.
 * Dart's casts fail on a wrong type (`as int` on 1.5, a List where it casts Map) while `?? default` tolerates a
 * missing key or null, so what is checked is the type of every key the app reads when the key is there.
 * docs/pinepods-client-calls.md, second table, lists every mobile call and what it reads.
 */
import { startLibrary, Library } from "../helpers/library";
import { rssFeed } from "../helpers/podcasts";

type Cast = "int" | "num" | "String" | "bool" | "Map<String,String>";
/** A Dart read: the value must have the cast's type unless it is null or absent (the app gives a default then). */
function dartMismatches(obj: Record<string, unknown>, casts: Record<string, Cast>): string[] {
  const ok: Record<Cast, (v: unknown) => boolean> = {
    int: (v) => Number.isInteger(v),
    num: (v) => typeof v === "number",
    String: (v) => typeof v === "string",
    bool: (v) => typeof v === "boolean",
    "Map<String,String>": (v) => typeof v === "object" && !Array.isArray(v) && Object.values(v as object).every((x) => typeof x === "string"),
  };
  return Object.entries(casts).filter(([k, cast]) => obj[k] != null && !ok[cast](obj[k])).map(([k, cast]) => `${k}: ${JSON.stringify(obj[k])} is not ${cast}`);
}

/** PinepodsEpisode (entities/pinepods_episode.dart and the list readers of pinepods_service.dart). */
const EPISODE: Record<string, Cast> = {
  podcastname: "String", episodetitle: "String", episodepubdate: "String", episodedescription: "String", episodeartwork: "String",
  episodeurl: "String", episodeduration: "int", listenduration: "int", episodeid: "int", completed: "bool", saved: "bool",
  queued: "bool", downloaded: "bool", is_youtube: "bool", podcastid: "int", listendate: "String", savedate: "String",
};
/** PodcastDetailsData.fromJson (pinepods_service.dart). */
const DYNAMIC_DETAILS: Record<string, Cast> = {
  podcastid: "int", podcastname: "String", feedurl: "String", description: "String", author: "String", artworkurl: "String",
  explicit: "bool", episodecount: "int", categories: "Map<String,String>", websiteurl: "String", podcastindexid: "int", is_youtube: "bool",
};

describe("PinePods mobile app reading this server's answers", () => {
  let lib: Library;
  const uid = () => lib.users.alice.id;
  const episodesOf = (items: Record<string, unknown>[]) => items.flatMap((e) => dartMismatches(e, EPISODE));

  beforeAll(async () => {
    lib = await startLibrary();
  });
  afterAll(() => lib?.stop());

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
      saved: (await lib.get(`/api/data/saved_episode_list/${uid()}`, "alice", { limit: 50, offset: 0, sort_by: "date", sort_order: "desc", filter: "all" })).body.saved_episodes,
      history: (await lib.get(`/api/data/user_history/${uid()}`, "alice", { limit: 50, offset: 0, sort_by: "date", sort_order: "desc", filter: "all" })).body.data,
      podcast_episodes: (await lib.get("/api/data/podcast_episodes", "alice", { user_id: uid(), podcast_id: lib.shared })).body.episodes,
    };
    for (const [name, items] of Object.entries(lists)) {
      expect([name, items.length > 0]).toEqual([name, true]);
      expect([name, episodesOf(items)]).toEqual([name, []]);
    }
    expect(lists.queue[0]).toMatchObject({ episodeid: ep, listenduration: 33, queued: true, saved: true });
  });

  test("get_episode_metadata: saved, queued and downloaded also as is_saved, is_queued, is_downloaded", async () => {
    const ep = lib.ids["Twenty"];
    await lib.post("/api/data/save_episode", "alice", { episode_id: ep, user_id: uid(), is_youtube: false });
    await lib.post("/api/data/queue_pod", "alice", { episode_id: ep, user_id: uid(), is_youtube: false });
    const res = await lib.post("/api/data/get_episode_metadata", "alice", { episode_id: ep, user_id: uid(), person_episode: false, is_youtube: false });
    expect(res.status).toBe(200);
    // Mobile reads is_*; the web client's Episode reads saved, queued, downloaded: both are there and agree.
    expect(res.body.episode).toMatchObject({ episodeid: ep, podcastid: lib.shared, saved: true, queued: true, downloaded: false, is_saved: true, is_queued: true, is_downloaded: false });
    expect(dartMismatches(res.body.episode, EPISODE)).toEqual([]);
    const other = await lib.post("/api/data/get_episode_metadata", "alice", { episode_id: lib.ids["Long"], user_id: uid(), person_episode: false, is_youtube: false });
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
    lib.feeds.route("/bare.xml", { body: rssFeed("Bare Show", [{ title: "One", guid: "bare-1", url: "https://media.test/bare/1.mp3", date: new Date().toISOString(), duration: 60 }]) });
    const q = { user_id: uid(), podcast_title: "Shared Show", podcast_url: lib.feeds.url + "/shared.xml", podcast_index_id: 0, added: true, display_only: false };
    const known = await lib.get("/api/data/get_podcast_details_dynamic", "alice", q);
    expect(known.status).toBe(200);
    expect(known.body).toMatchObject({ podcastid: lib.shared, podcastname: "Shared Show", author: "", artworkurl: "", categories: {} });
    expect(dartMismatches(known.body, DYNAMIC_DETAILS)).toEqual([]);
    const fetched = await lib.get("/api/data/get_podcast_details_dynamic", "alice", { ...q, podcast_title: "Bare Show", podcast_url: lib.feeds.url + "/bare.xml", added: false });
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
    expect(dartMismatches(playlist, { playlist_id: "int", user_id: "int", name: "String", description: "String", min_duration: "int", max_duration: "int", max_episodes: "int", episode_count: "int", icon_name: "String", created: "String", last_updated: "String" })).toEqual([]);
    const page = await lib.get("/api/data/get_playlist_episodes", "alice", { user_id: uid(), playlist_id: playlist.playlist_id, limit: 50, offset: 0 });
    expect(page.status).toBe(200);
    expect(episodesOf(page.body.episodes)).toEqual([]);
    const p20 = await lib.get("/api/data/fetch_podcasting_2_data", "alice", { episode_id: lib.ids["Quarter"], user_id: uid() });
    expect(p20.body).toMatchObject({ chapters: expect.any(Array), people: expect.any(Array), transcripts: expect.any(Array) });
  });
});
