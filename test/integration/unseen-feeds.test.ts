/**
 * Feeds the parser was not tuned on, black-box over HTTP: each fixture imitates what one hosting
 * platform really writes (Libsyn, Anchor/Spotify, Buzzsprout, WordPress PowerPress, an Atom feed, a
 * council's hand-made RSS with mixed dates, ISO-8859-1 and undeclared Windows-1252 bytes). The feeds
 * are served from loopback, added with add_podcast and read back with podcast_episodes and
 * get_podcast_details.
 */
import fs from "fs";
import path from "path";
import { config } from "../../shared/config";
import { asUsers } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers, FEEDS_DIR } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";

const bytes = (name: string) => fs.readFileSync(path.join(FEEDS_DIR, name));

/** What one feed must come out as: channel fields and, newest first, each episode's key fields. */
interface Expected {
  route: string;
  file: string;
  contentType?: string;
  title: string;
  author: string | null;
  artwork: string;
  explicit: boolean;
  categories?: string[];
  episodes: { title: string; duration: number; pub: string | null; url: string | null; artwork?: string; description?: RegExp }[];
}

describe("feeds from hosting platforms the parser was not tuned on", () => {
  let server: TestServer;
  let feeds: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const add = (who: string, feedPath: string) =>
    post("/api/data/add_podcast", who, { podcast_values: { pod_feed_url: feeds.url + feedPath, user_id: u[who].id } });

  const libsynArt = "https://ssl-static.libsyn.com/p/assets/2/5/8/0/2580a1b3c4d5/GardenShed_3000.jpg";
  const anchorArt = "https://d3t3ozftmdmh3i.cloudfront.net/staging/podcast_uploaded_nologo/40112233/40112233-1700000000000-abc123def456.jpg";
  const buzzArt = "https://storage.buzzsprout.com/variants/q1w2e3r4t5y6/8d0f1e2a3b4c.jpg";
  const wpArt = "https://vintageradio.example/wp-content/uploads/powerpress/vrw_cover_1400.jpg";
  const expected = (): Expected[] => [
    {
      route: "/libsyn/rss",
      file: "unseen_libsyn_style.xml",
      contentType: "application/rss+xml; charset=UTF-8",
      title: "The Garden Shed",
      author: "Garden Shed Media",
      artwork: libsynArt,
      explicit: false,
      categories: ["Leisure", "Home & Garden", "Education"],
      episodes: [
        {
          title: 'Ep. 42 – Slugs, Beer Traps & "Organic" Pellets',
          duration: 3641,
          pub: "2024-03-12T10:00:00.000Z",
          url: "https://traffic.libsyn.com/secure/thegardenshed/GS042_final.mp3?dest-id=1234567",
          artwork: "https://ssl-static.libsyn.com/p/assets/e/4/2/ep42_3000.jpg",
          description: /^<p>Do beer traps <em>actually<\/em> work\?/,
        },
        {
          title: "Bonus: Listener Mailbag (Uncut)",
          duration: 1335,
          pub: "2024-03-08T16:30:00.000Z",
          url: "https://traffic.libsyn.com/secure/thegardenshed/GS_Bonus_Mailbag.mp3?dest-id=1234567",
          artwork: libsynArt,
        },
        {
          title: "Ep. 41 – Seed Potatoes and Chitting",
          duration: 2643,
          pub: "2024-03-05T10:00:00.000Z",
          url: "https://traffic.libsyn.com/secure/thegardenshed/GS041.mp3?dest-id=1234567",
          artwork: libsynArt,
        },
      ],
    },
    {
      route: "/anchor/podcast/rss",
      file: "unseen_anchor_style.xml",
      title: "Midnight Snack Theories",
      author: "Jo & Sam",
      artwork: anchorArt,
      explicit: false,
      categories: ["Arts", "Food"],
      episodes: [
        {
          title: "Is cereal a soup? (feat. our moms)",
          duration: 2382,
          pub: "2024-03-14T06:00:00.000Z",
          url: "https://anchor.fm/s/f00dcafe/podcast/play/84512345/https%3A%2F%2Fd3ctxlq1ktw2nl.cloudfront.net%2Fstaging%2F2024-2-14%2F371234567-44100-2-a1b2c3d4e5f6.mp3",
          artwork: "https://d3t3ozftmdmh3i.cloudfront.net/staging/podcast_uploaded_episode/40112233/40112233-1710396000000-ep-cereal.jpg",
          description: /Spoiler: we don&#39;t\./,
        },
        {
          title: "Why does toast always land butter-side down?",
          duration: 1811,
          pub: "2024-02-29T06:00:00.000Z",
          url: "https://anchor.fm/s/f00dcafe/podcast/play/83900001/https%3A%2F%2Fd3ctxlq1ktw2nl.cloudfront.net%2Fstaging%2F2024-1-29%2F369999999-44100-2-f6e5d4c3b2a1.m4a",
          artwork: anchorArt,
        },
      ],
    },
    {
      route: "/2201234.rss",
      file: "unseen_buzzsprout_style.xml",
      title: "Small Town Code",
      author: "Riley Okafor",
      artwork: buzzArt,
      explicit: false,
      categories: ["Technology", "Society & Culture", "Places & Travel"],
      episodes: [
        {
          title: "The Bakery That Went Offline-First",
          duration: 2750,
          pub: "2024-03-11T16:00:00.000Z",
          url: "https://www.buzzsprout.com/2201234/14612345-the-bakery-that-went-offline-first.mp3",
          artwork: buzzArt,
        },
        {
          title: "Trailer: Season 2",
          duration: 95,
          pub: "2024-02-01T13:00:00.000Z",
          url: "https://www.buzzsprout.com/2201234/14400001-trailer-season-2.mp3",
          artwork: buzzArt,
        },
      ],
    },
    {
      // Served under /feed/podcast/ like WordPress: the relative enclosure and image resolve against it.
      route: "/feed/podcast/",
      file: "unseen_powerpress_style.xml",
      title: "Vintage Radio Workbench – Podcast",
      author: "Vintage Radio Workbench",
      artwork: wpArt,
      explicit: false,
      categories: ["Leisure", "Hobbies"],
      episodes: [
        {
          title: "Bush DAC90A: the “Toaster” lives again",
          duration: 3840,
          pub: "2024-03-09T19:22:38.000Z",
          url: "https://media.blubrry.com/vintageradio/p/vintageradio.example/wp-content/uploads/2024/03/VRW_058_DAC90A.mp3?awCollectionId=vrw&awEpisodeId=1187",
          artwork: wpArt,
          description: /model=dac90a&amp;rev=2/,
        },
        {
          title: "Workshop Q&A: isolation transformers",
          duration: 2300,
          pub: "2024-02-24T10:00:00.000Z",
          url: "https://vintageradio.example/wp-content/uploads/2024/02/VRW_057_QA.mp3",
          artwork: wpArt,
        },
        {
          title: "Minisode: my soldering iron tip",
          duration: 300,
          pub: "2024-02-17T10:00:00.000Z",
          url: `${feeds.url}/wp-content/uploads/2024/02/VRW_056_minisode.mp3`,
          artwork: `${feeds.url}/wp-content/uploads/2024/02/minisode.jpg`,
        },
      ],
    },
    {
      // PST and EST zone names, RFC 3339, no seconds, a missing pubDate, no guid anywhere, an item without enclosure.
      route: "/council.rss",
      file: "unseen_mixed_dates_no_guid.xml",
      title: "City Council Minutes (Audio)",
      author: null,
      artwork: "http://council.example.gov/images/seal.png",
      explicit: false,
      episodes: [
        { title: "Agenda posted: March 12 session", duration: 0, pub: "2024-03-08T17:15:00.000Z", url: "" },
        { title: "Work Session – March 6", duration: 70, pub: "2024-03-06T19:30:00.000Z", url: "http://council.example.gov/audio/2024-03-06-work.mp3" },
        {
          title: "Special Session – March 5 (evening)",
          duration: 2850,
          pub: "2024-03-05T20:00:00.000Z",
          url: "http://council.example.gov/audio/2024-03-05-special.mp3",
        },
        {
          title: "Regular Session – March 5",
          duration: 9067,
          pub: "2024-03-05T16:00:00.000Z",
          url: "http://council.example.gov/audio/2024-03-05-regular.mp3",
          artwork: "http://council.example.gov/images/seal.png",
        },
      ],
    },
    {
      route: "/atom.xml",
      file: "unseen_atom_enclosures.xml",
      contentType: "application/atom+xml",
      title: "Hörspiel-Werkstatt",
      author: "Werkstatt-Kollektiv",
      artwork: "https://hoerspiel.example/logo.png",
      explicit: false,
      categories: ["Fiction"],
      episodes: [
        {
          title: "Der Leuchtturm & die Möwe",
          duration: 754,
          pub: "2024-03-10T17:00:00.000Z",
          url: "https://cdn.hoerspiel.example/folge7.ogg?token=a1b2&dl=1",
          artwork: "https://hoerspiel.example/logo.png",
          description: /<b>Sturm<\/b>/,
        },
        { title: "Folge 6: Nebel", duration: 587, pub: "2024-02-25T17:00:00.000Z", url: "https://cdn.hoerspiel.example/folge6.mp3" },
      ],
    },
    {
      route: "/stadtfunk.xml",
      file: "unseen_latin1_umlauts.xml",
      contentType: "application/rss+xml; charset=ISO-8859-1",
      title: "Grüße aus Köln - Der Stadtfunk",
      author: "Bürgerfunk Köln e.V.",
      artwork: "https://stadtfunk-koeln.example/bilder/cover.jpg",
      explicit: false,
      categories: ["Society & Culture"],
      episodes: [
        {
          title: "Folge 12: Die Hohenzollernbrücke - Schlösser über dem Rhein",
          duration: 1875,
          pub: "2024-03-02T09:00:00.000Z",
          url: "https://stadtfunk-koeln.example/audio/folge12.mp3",
          description: /Frau Müller .* 5 €\.$/,
        },
        {
          title: "Folge 11: Straßenbahn-Linie 18 - Ein Tag im Führerstand",
          duration: 1743,
          pub: "2024-02-17T09:00:00.000Z",
          url: "https://stadtfunk-koeln.example/audio/folge11.mp3",
        },
      ],
    },
    {
      // Windows-1252 bytes, no encoding declared anywhere; a 250 KB show-notes body.
      route: "/grind.xml",
      file: "unseen_win1252_huge_description.xml",
      contentType: "text/xml",
      title: "The “Daily” Grind",
      author: null,
      artwork: "https://dailygrind.example/art.jpg",
      explicit: true,
      episodes: [
        {
          title: "Don’t call it a “latte”",
          duration: 899,
          pub: "2024-03-08T07:00:00.000Z",
          url: "https://dailygrind.example/ep/2024-03-08.mp3",
          description: /“the great café debate” – whether a flat white is just a small latte… It’s not\./,
        },
        { title: "Espresso – the short story", duration: 541, pub: "2024-03-07T07:00:00.000Z", url: "https://dailygrind.example/ep/2024-03-07.mp3" },
      ],
    },
  ];

  beforeAll(async () => {
    config.refreshInterval = 0;
    feeds = await startLoopback({});
    server = await startServer();
    u = await createUsers(server.url, ["dana", "erin"]);
  });
  afterAll(async () => {
    await server?.stop();
    await feeds?.close();
  });

  test("every unseen feed: item count, titles, durations, dates, enclosure URLs, artwork fallbacks and channel fields come out right", async () => {
    const all = expected();
    for (const f of all) feeds.route(f.route, { headers: { "Content-Type": f.contentType ?? "application/rss+xml" }, body: bytes(f.file) });
    const feedItems: Record<string, number> = { "/council.rss": 5 };
    for (const f of all) {
      const res = await add("dana", f.route);
      expect({ feed: f.file, status: res.status }).toEqual({ feed: f.file, status: 200 });
      const podcast_id = res.body.podcast_id;
      const total = feedItems[f.route] ?? f.episodes.length;

      const details = await get("/api/data/get_podcast_details", "dana", { user_id: u.dana.id, podcast_id });
      expect(details.status).toBe(200);
      expect(details.body.podcast).toMatchObject({
        podcast_id,
        title: f.title,
        author: f.author,
        artwork_url: f.artwork,
        explicit: f.explicit,
        total_episodes: total,
        feed_url: feeds.url + f.route,
      });
      if (f.categories) expect(details.body.podcast.categories).toEqual(f.categories);
      expect(details.body.recent_episodes).toHaveLength(total);
      expect(res.body.first_episode_id).toBe(details.body.recent_episodes[0].episode_id);

      const list = await get("/api/data/podcast_episodes", "dana", { user_id: u.dana.id, podcast_id, limit: 100 });
      expect(list.status).toBe(200);
      expect({ feed: f.file, total: list.body.total }).toEqual({ feed: f.file, total });
      for (const [i, want] of f.episodes.entries()) {
        const ep = list.body.episodes[i];
        expect({ feed: f.file, title: ep.episodetitle, duration: ep.episodeduration, pub: ep.episodepubdate, url: ep.episodeurl }).toEqual({
          feed: f.file,
          title: want.title,
          duration: want.duration,
          pub: want.pub ?? "",
          url: want.url,
        });
        expect(ep.podcastname).toBe(f.title);
        if (want.artwork) expect(ep.episodeartwork).toBe(want.artwork);
        if (want.description) expect(ep.episodedescription).toMatch(want.description);
        const recent = details.body.recent_episodes.find((r: any) => r.episode_id === ep.episodeid);
        expect(recent).toMatchObject({ title: want.title, duration: want.duration, pub_date: want.pub, audio_url: want.url || null });
      }
      if (f.file === "unseen_win1252_huge_description.xml") expect(list.body.episodes[0].episodedescription.length).toBeGreaterThan(240_000);
    }
  });

  test("the council feed keeps its undated item last and its item without audio (no guid anywhere)", async () => {
    const pods = (await get(`/api/data/return_pods/${u.dana.id}`, "dana")).body.pods;
    const council = pods.find((p: any) => p.title === "City Council Minutes (Audio)");
    const list = await get("/api/data/podcast_episodes", "dana", { user_id: u.dana.id, podcast_id: council.podcast_id });
    const titles = list.body.episodes.map((e: any) => [e.episodetitle, e.episodepubdate, e.episodeurl]);
    expect(titles[0]).toEqual(["Agenda posted: March 12 session", "2024-03-08T17:15:00.000Z", ""]); // text a feed lacks is "" in list items
    expect(titles[titles.length - 1]).toEqual(["Planning Commission – March 7", "", "http://council.example.gov/audio/2024-03-07-planning.mp3"]);
    expect(council.last_episode_date).toBe("2024-03-08T17:15:00.000Z");
  });

  test("a Libsyn feed gaining an episode: one new episode after two refreshes, no duplicates", async () => {
    const original = bytes("unseen_libsyn_style.xml").toString("utf8");
    let body = original;
    feeds.route("/libsyn-live/rss", (_req, res) => {
      res.writeHead(200, { "Content-Type": "application/rss+xml; charset=UTF-8" });
      res.end(body);
    });
    const added = await add("erin", "/libsyn-live/rss");
    expect(added.status).toBe(200);
    const q = { user_id: u.erin.id, podcast_id: added.body.podcast_id };
    const before = await get("/api/data/podcast_episodes", "erin", q);
    expect(before.body.total).toBe(3);

    // Libsyn puts the new item first and rebuilds the channel dates.
    const newItem = `<item>
      <title>Ep. 43 – Rhubarb Forcing</title>
      <itunes:title>Rhubarb Forcing</itunes:title>
      <pubDate>Tue, 19 Mar 2024 10:00:00 +0000</pubDate>
      <guid isPermaLink="false"><![CDATA[f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9]]></guid>
      <link><![CDATA[https://thegardenshed.libsyn.com/ep-43-rhubarb-forcing]]></link>
      <description><![CDATA[<p>Buckets, darkness and pink stalks.</p>]]></description>
      <enclosure length="39000000" type="audio/mpeg" url="https://traffic.libsyn.com/secure/thegardenshed/GS043.mp3?dest-id=1234567"/>
      <itunes:duration>00:40:40</itunes:duration>
      <itunes:explicit>false</itunes:explicit>
      <itunes:episode>43</itunes:episode>
      <itunes:season>3</itunes:season>
      <itunes:episodeType>full</itunes:episodeType>
    </item>
    <item>`;
    body = original
      .replace("<item>", newItem)
      .replace("<lastBuildDate>Tue, 12 Mar 2024 10:05:17 +0000</lastBuildDate>", "<lastBuildDate>Tue, 19 Mar 2024 10:03:09 +0000</lastBuildDate>");

    const first = await get("/api/data/refresh_pods", "erin");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ refreshed: 1, updated: 1, new_episodes: 1, failed: 0 });
    const second = await get("/api/data/refresh_pods", "erin");
    expect(second.body).toMatchObject({ refreshed: 1, unchanged: 1, new_episodes: 0, failed: 0 });

    const after = await get("/api/data/podcast_episodes", "erin", q);
    expect(after.body.total).toBe(4);
    expect(after.body.episodes.map((e: any) => e.episodetitle)).toEqual([
      "Ep. 43 – Rhubarb Forcing",
      'Ep. 42 – Slugs, Beer Traps & "Organic" Pellets',
      "Bonus: Listener Mailbag (Uncut)",
      "Ep. 41 – Seed Potatoes and Chitting",
    ]);
    expect(after.body.episodes[0]).toMatchObject({
      episodeduration: 2440,
      episodepubdate: "2024-03-19T10:00:00.000Z",
      episodeartwork: "https://ssl-static.libsyn.com/p/assets/2/5/8/0/2580a1b3c4d5/GardenShed_3000.jpg",
    });
    // The older episodes kept their ids.
    expect(after.body.episodes.slice(1).map((e: any) => e.episodeid)).toEqual(before.body.episodes.map((e: any) => e.episodeid));
    const pod = (await get(`/api/data/return_pods/${u.erin.id}`, "erin")).body.pods[0];
    expect(pod).toMatchObject({ episode_count: 4, last_episode_date: "2024-03-19T10:00:00.000Z" });
  });
});
