/**
 * The sync server started on a store of the versions before: gpodder_feeds had indexes of rkey, user_id and library,
 * and no mark on the user's record said that feeds wait to be applied. At start the three indexes go (every upload's
 * inserts paid for them), and a feed that was waiting still reaches the library. Embedded store only: the old
 * store is made by editing its SQLite files.
 */
import Database from "better-sqlite3";
import path from "path";
import { config } from "../../shared/config";
import { api, basic } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { createUsers, libraryFeeds, rssFeed } from "../helpers/podcasts";
import { startServer, TestServer } from "../helpers/server";
import { until } from "../helpers/wait";

const PASSWORD = "a long password"; // createUsers' password

describe("sync server on a store of the version before", () => {
  let server: TestServer | undefined;
  let feeds: Loopback;
  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0, syncInterval: 0, gpodderRetrySeconds: 1 });
    feeds = await startLoopback();
  });
  afterAll(async () => {
    await server?.stop();
    await feeds?.close();
  });

  test("the retired indexes are dropped at start and a feed that waited is subscribed once it can be", async () => {
    server = await startServer();
    const { dataDir } = server;
    const u = await createUsers(server.url, ["alice"]);
    const login = await api(server.url).post("/api/2/auth/alice/login.json").set("Authorization", basic("alice", PASSWORD));
    const cookie = String(login.headers["set-cookie"][0]).split(";")[0];
    const later = `${feeds.url}/later.xml`;
    expect(
      (
        await api(server.url)
          .post("/api/2/subscriptions/alice/phone.json")
          .set("Cookie", cookie)
          .send({ add: [later], remove: [] })
      ).status,
    ).toBe(200);
    // Tried once and failed (404 on the loopback server): it waits for a retry.
    await until(
      async () => {
        const report = (await api(server!.url).get("/api/2/updates/alice/phone.json?since=0").set("Cookie", cookie)).body;
        return report.not_applied?.some((f: { url: string; library: string }) => f.url === later && f.library === "failed");
      },
      10_000,
      50,
    );
    await server.stop();
    server = undefined;

    // The store as the versions before left it: their indexes there, no mark on the user's record.
    const feedsDb = new Database(path.join(dataDir, "gpodder_feeds.sqlite"));
    for (const field of ["rkey", "user_id", "library"]) feedsDb.exec(`CREATE INDEX IF NOT EXISTS "by_${field}" ON docs (json_extract(doc, '$.${field}'))`);
    feedsDb.close();
    const usersDb = new Database(path.join(dataDir, "gpodder_users.sqlite"));
    usersDb.exec("UPDATE docs SET doc = json_remove(doc, '$.feeds_due_at', '$.feeds_mark')");
    expect((usersDb.prepare("SELECT doc FROM docs").all() as { doc: string }[]).every((r) => !r.doc.includes("feeds_due_at"))).toBe(true);
    usersDb.close();

    feeds.route("/later.xml", { body: rssFeed("Later", [{ title: "Later 1", url: `${feeds.url}/media/later-1.mp3`, date: "2024-03-01T00:00:00Z" }]) });
    server = await startServer({ dataDir });
    const indexes = new Database(path.join(dataDir, "gpodder_feeds.sqlite"), { readonly: true });
    const names = (indexes.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as { name: string }[]).map((r) => r.name);
    indexes.close();
    expect(names).not.toContain("by_rkey");
    expect(names).not.toContain("by_user_id");
    expect(names).not.toContain("by_library");
    await until(async () => (await libraryFeeds(server!.url, u.alice)).includes(later), 20_000, 200);
    // Applied: nothing waits any more.
    const report = (await api(server.url).get("/api/2/updates/alice/phone.json?since=0").set("Cookie", cookie)).body;
    expect(report.not_applied).toEqual([]);
  });
});
