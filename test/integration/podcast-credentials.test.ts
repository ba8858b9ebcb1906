/**
 * Feed credentials written into the URL (https://user:pass@host/feed, what many private-feed
 * services hand out): used for every fetch, never stored in feed_url, returned or logged.
 */
import { config } from "../../shared/config";
import { asUsers } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers, fixture } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";

describe("credentials inside a feed URL", () => {
  let server: TestServer;
  let feeds: Loopback;
  let u: Record<string, { id: number; key: string }>;
  const logs: string[] = [];
  const { get, post } = asUsers(() => ({ url: server.url, users: u }));
  const expected = "Basic " + Buffer.from("me@example.org:s3cr:et").toString("base64");

  beforeAll(async () => {
    config.refreshInterval = 0;
    feeds = await startLoopback({
      "/private.xml": (req, res) => {
        if (req.headers.authorization !== expected) {
          res.writeHead(401, { "WWW-Authenticate": 'Basic realm="feed"' });
          return void res.end();
        }
        res.end(fixture("minimal_itunes_3items.xml"));
      },
      "/tokened.xml": (req, res) => {
        if (!req.url!.includes("auth=t0ken-in-query")) {
          res.writeHead(403);
          return void res.end();
        }
        res.end(fixture("minimal_itunes_3items.xml"));
      },
    });
    server = await startServer({
      broker: {
        logger: {
          type: "Console",
          options: {
            level: "debug",
            formatter: (_type: string, args: any[]) => {
              logs.push(JSON.stringify(args));
              return [];
            },
          },
        },
      },
    });
    u = await createUsers(server.url, ["fay", "gus"]);
  });
  afterAll(async () => {
    await server?.stop();
    await feeds?.close();
  });

  test("add_podcast with user:pass in the URL: fetched with them, shown and stored without them, one record with add_custom_podcast", async () => {
    const clean = `${feeds.url}/private.xml`;
    const withCreds = clean.replace("http://", "http://me%40example.org:s3cr%3Aet@");
    const added = await post("/api/data/add_podcast", "fay", { podcast_values: { pod_feed_url: withCreds, user_id: u.fay.id } });
    expect(added.status).toBe(200);
    const podcast_id = added.body.podcast_id;

    const answers = [
      await get(`/api/data/return_pods/${u.fay.id}`, "fay"),
      await get(`/api/data/return_pods_extra/${u.fay.id}`, "fay"),
      await get("/api/data/get_podcast_details", "fay", { user_id: u.fay.id, podcast_id }),
      await get("/api/data/get_podcast_details_dynamic", "fay", {
        user_id: u.fay.id,
        podcast_title: "x",
        podcast_url: withCreds,
        podcast_index_id: 0,
        added: true,
      }),
      await get("/api/data/get_podcast_details_dynamic", "gus", {
        user_id: u.gus.id,
        podcast_title: "x",
        podcast_url: withCreds,
        podcast_index_id: 0,
        added: false,
      }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.text).not.toMatch(/s3cr|me%40example/);
    }
    expect(answers[0].body.pods[0].feed_url).toBe(clean);
    expect(answers[3].body).toMatchObject({ podcastid: podcast_id, feedurl: clean });
    expect(answers[4].body).toMatchObject({ podcastid: 0, feedurl: clean, episodecount: 3 });

    // Lookups by the URL as shown, or as first given.
    for (const podcast_feed of [clean, withCreds]) {
      expect((await get("/api/data/get_podcast_id", "fay", { user_id: u.fay.id, podcast_feed, podcast_title: answers[0].body.pods[0].title })).body).toEqual({
        episodes: podcast_id,
        podcast_id,
      });
    }
    // The same feed and credentials given apart are the same record.
    const custom = await post("/api/data/add_custom_podcast", "gus", { feed_url: clean, user_id: u.gus.id, username: "me@example.org", password: "s3cr:et" });
    expect(custom.status).toBe(200);
    expect(custom.body.podcast_id).toBe(podcast_id);
    // Refreshes keep using the credentials.
    const refresh = await get("/api/data/refresh_pods", "fay");
    expect(refresh.body).toMatchObject({ refreshed: 1, failed: 0 });
    expect(feeds.requests.every((r) => r.headers.authorization === expected)).toBe(true);
    expect(logs.join("\n")).toContain("podcast added"); // the add was logged ...
    expect(logs.join("\n")).not.toMatch(/s3cr/); // ... without the password
  });

  test("a token in the feed URL's query string is used for fetching but never logged", async () => {
    const url = `${feeds.url}/tokened.xml?auth=t0ken-in-query`;
    const added = await post("/api/data/add_podcast", "gus", { podcast_values: { pod_feed_url: url, user_id: u.gus.id } });
    expect(added.status).toBe(200);
    const missing = await post("/api/data/add_podcast", "gus", {
      podcast_values: { pod_feed_url: `${feeds.url}/gone.xml?auth=t0ken-in-query`, user_id: u.gus.id },
    });
    expect(missing.status).toBe(400);
    expect(missing.text).not.toContain("t0ken");
    expect(logs.join("\n")).not.toContain("t0ken");
  });
});
