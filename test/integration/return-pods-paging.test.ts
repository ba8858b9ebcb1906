/**
 * return_pods pages when asked (not in the spec: limit, offset, search, and total in the answer), so that a
 * client of a 1,000-podcast library (the web app's Podcasts page) never reads it whole; without them the whole
 * list, as documented. Another user's list is 403.
 */
import { api, expectErrorBody } from "../helpers/client";
import { startLoopback, Loopback } from "../helpers/loopback";
import { createUsers, rssFeed } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";

const TITLES = ["Delta Talk", "alpha hour", "Charlie Weekly", "Bravo Show", "Echo Radio", "Foxtrot News", "Golf Cast"];
let server: TestServer;
let feeds: Loopback;
let users: Record<string, { id: number; key: string }>;

beforeAll(async () => {
  const routes = Object.fromEntries(
    TITLES.map((title, i) => [
      `/f${i}.xml`,
      {
        body: rssFeed(title, [{ title: `${title} 1`, url: `https://media.test/${i}.mp3`, date: new Date().toISOString() }]),
        headers: { "Content-Type": "application/rss+xml" },
      },
    ]),
  );
  feeds = await startLoopback(routes);
  server = await startServer();
  users = await createUsers(server.url, ["ann", "ben"]);
  for (let i = 0; i < TITLES.length; i++) {
    const res = await api(server.url)
      .post("/api/data/add_podcast")
      .set("Api-Key", users.ann.key)
      .send({ podcast_values: { pod_feed_url: `${feeds.url}/f${i}.xml`, user_id: users.ann.id } });
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await server.stop();
  await feeds.close();
});

const pods = (query: Record<string, string | number>, key = users.ann.key, user = users.ann.id) =>
  api(server.url).get(`/api/data/return_pods/${user}`).query(query).set("Api-Key", key);

test("pages by title, case-insensitively; total counts what matched", async () => {
  const first = await pods({ limit: 3, offset: 0 });
  expect(first.status).toBe(200);
  expect(first.body.total).toBe(7);
  expect(first.body.pods.map((p: any) => p.title)).toEqual(["alpha hour", "Bravo Show", "Charlie Weekly"]);
  const last = await pods({ limit: 3, offset: 6 });
  expect(last.body.pods.map((p: any) => p.title)).toEqual(["Golf Cast"]);
  const found = await pods({ limit: 10, search: "  O  " });
  expect(found.body.pods.map((p: any) => p.title)).toEqual(["alpha hour", "Bravo Show", "Echo Radio", "Foxtrot News", "Golf Cast"]);
  expect(found.body.total).toBe(5);
});

test("without paging the whole list as documented; bad values are 400; another user's list is 403", async () => {
  const all = await pods({});
  expect(all.body.pods).toHaveLength(7);
  expect(all.body.total).toBe(7);
  for (const bad of [{ limit: 0 }, { limit: 501 }, { offset: -1 }, { limit: "x" }, { search: "y".repeat(201) }] as Record<string, string | number>[])
    expectErrorBody(await pods(bad), 400);
  expect((await pods({ limit: 5 }, users.ben.key)).status).toBe(403);
});
