/** Local media folders over HTTP: admins browse LOCAL_MEDIA_DIR; nothing outside it is reachable. */
import fs from "fs";
import path from "path";
import { config } from "../../shared/config";
import { asUsers, expectErrorBody } from "../helpers/client";
import { createUsers } from "../helpers/podcasts";
import { startServer, tempDir, TestServer } from "../helpers/server";

describe("local media folders", () => {
  let server: TestServer;
  let u: Record<string, { id: number; key: string }>;
  const { get } = asUsers(() => ({ url: server.url, users: u }));
  const list = (p?: string, who = "admin") => get("/api/data/list_local_directories", who, p === undefined ? {} : { path: p });

  beforeAll(async () => {
    const media = tempDir("podcast-media-");
    const outside = tempDir("podcast-outside-");
    fs.mkdirSync(path.join(media, "Show A", "Season 1"), { recursive: true });
    fs.mkdirSync(path.join(media, "Show B"));
    fs.writeFileSync(path.join(media, "Show A", "01.mp3"), "x");
    fs.writeFileSync(path.join(media, "Show A", "02.m4a"), "x");
    fs.writeFileSync(path.join(media, "Show A", "cover.jpg"), "x");
    fs.writeFileSync(path.join(outside, "secret.mp3"), "x");
    fs.symlinkSync(outside, path.join(media, "escape"));
    fs.symlinkSync(outside, path.join(media, "Show B", "inner"));
    config.localMediaDir = media;
    server = await startServer();
    u = await createUsers(server.url, ["alice"]);
  });
  afterAll(() => server?.stop());

  test("admins list the folders with their audio file counts; links are not listed", async () => {
    const top = await list();
    expect(top.status).toBe(200);
    expect(top.body).toEqual({ path: "", audio_files: 0, directories: [{ name: "Show A", path: "Show A", audio_files: 2 }, { name: "Show B", path: "Show B", audio_files: 0 }] });
    expect((await list("Show A")).body.directories).toEqual([{ name: "Season 1", path: path.join("Show A", "Season 1"), audio_files: 0 }]);
  });

  test.each(["..", "../..", "Show A/../..", "/etc", "/", "escape", "Show B/inner", "Show B/inner/..", "C:\\\\Windows", "a\u0000b"])("%j is refused", async (p) => {
    const res = await list(p);
    expect([400, 404]).toContain(res.status);
    expectErrorBody(res, res.status);
    expect(JSON.stringify(res.body)).not.toMatch(/secret/);
  });

  test("a missing folder is a 404, a file a 400, and only admins may list (403)", async () => {
    expectErrorBody(await list("Nope"), 404);
    expectErrorBody(await list("Show A/01.mp3"), 400);
    expectErrorBody(await list(undefined, "alice"), 403);
  });
});
