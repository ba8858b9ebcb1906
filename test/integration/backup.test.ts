/**
 * Server backups, black-box over HTTP: a library of two users (subscriptions on loopback feeds, queue,
 * history, saves, playlists, settings) is backed up with backup_server, restored into a fresh DATA_DIR
 * by `npm run restore` (the compiled CLI), and the restored server answers the same reads, keeps the
 * old keys and hands out fresh ids; the scheduler writes gzip files into BACKUP_DIR, which list, delete
 * (bare names only) and restore_backup_file (replacing the data) work on. Also the podcast index reads.
 */
import { execFile } from "child_process";
import fs from "fs";
import path from "path";
import zlib from "zlib";
import { Readable } from "stream";
import { promisify } from "util";
import { api, basic, expectErrorBody } from "../helpers/client";
import { Library, raw, startLibrary } from "../helpers/library";
import { startServer, tempDir, TestServer } from "../helpers/server";
import { until } from "../helpers/wait";
import { config } from "../../shared/config";

const PASSWORD = "a long password"; // createUsers' password of every user
const CLI = path.join(__dirname, "..", "..", "dist", "services", "backups.parts", "restore-cli.js");

/** supertest body as raw bytes (it would try to parse JSON lines). */
function bytes(res: any, cb: (err: Error | null, body: Buffer) => void) {
  const chunks: Buffer[] = [];
  res.on("data", (c: Buffer) => chunks.push(c));
  res.on("end", () => cb(null, Buffer.concat(chunks)));
}

function lines(file: Buffer): any[] {
  const text = file[0] === 0x1f && file[1] === 0x8b ? zlib.gunzipSync(file).toString("utf8") : file.toString("utf8");
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

function runRestore(file: string, dataDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, DATA_DIR: dataDir, BACKUP_DIR: config.backupDir, LOG_LEVEL: "warn", TRANSPORTER: "", MONGO_URI: "" };
  return promisify(execFile)(process.execPath, [CLI, file], { env, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: any) => ({ code: err.code ?? 1, stdout: err.stdout ?? "", stderr: err.stderr ?? "" }),
  );
}

describe("server backups", () => {
  let lib: Library;
  let restored: TestServer | null = null;
  /** The first backup_server download (plain) and the reads the server gave when it was made. */
  let original: { file: Buffer; reads: Record<string, unknown> } | null = null;
  const users = () => lib.users;
  const uid = (who: string) => users()[who].id;
  const as = (url: string, who: string) => ({
    get: (p: string, query: object = {}) => api(url).get(p).query(query).set("Api-Key", users()[who].key),
    post: (p: string, body: object) => api(url).post(p).set("Api-Key", users()[who].key).send(body),
  });

  /** The reads that must give the same answers after a restore. */
  async function snapshot(url: string) {
    const out: Record<string, unknown> = {};
    for (const who of ["alice", "bob"]) {
      const u = as(url, who);
      const id = uid(who);
      const reads: [string, Promise<any>][] = [
        ["pods", u.get(`/api/data/return_pods/${id}`)],
        ["episodes", u.get(`/api/data/return_episodes/${id}`, { limit: 1000 })],
        ["queue", u.get("/api/data/get_queued_episodes", { user_id: id })],
        ["history", u.get(`/api/data/user_history/${id}`)],
        ["saved", u.get(`/api/data/saved_episode_list/${id}`)],
        ["playlists", u.get("/api/data/get_playlists", { user_id: id })],
        ["theme", u.get(`/api/data/get_theme/${id}`)],
        ["speed", u.post("/api/data/get_playback_speed", { user_id: id })],
        ["unmatched", u.post("/api/data/get_unmatched_podcasts", { user_id: id })],
        ["ignored", u.post("/api/data/get_ignored_podcasts", { user_id: id })],
      ];
      for (const [name, req] of reads) {
        const res = await req;
        expect({ who, name, status: res.status }).toEqual({ who, name, status: 200 });
        out[`${who}.${name}`] = res.body;
      }
    }
    return out;
  }

  const backup = (url: string, who: string, body: object, headers: Record<string, string> = {}) =>
    api(url).post("/api/data/backup_server").set("Api-Key", users()[who].key).set(headers).send(body).buffer(true).parse(bytes);

  beforeAll(async () => {
    config.backupDir = tempDir("podcast-backups-");
    config.backupSchedulerMs = 100;
    config.backupPassword = "";
    lib = await startLibrary();
    const a = as(lib.server.url, "alice");
    const b = as(lib.server.url, "bob");
    for (const t of ["Tiny", "Hour", "Long"])
      expect((await a.post("/api/data/queue_pod", { user_id: uid("alice"), episode_id: lib.ids[t], is_vidsite: false })).status).toBe(200);
    expect((await b.post("/api/data/queue_pod", { user_id: uid("bob"), episode_id: lib.ids.Quarter, is_vidsite: false })).status).toBe(200);
    for (const t of ["Half", "Twenty"])
      expect(
        (await a.post("/api/data/record_podcast_history", { user_id: uid("alice"), episode_id: lib.ids[t], episode_pos: 120, is_vidsite: false })).status,
      ).toBe(200);
    expect((await a.post("/api/data/save_episode", { user_id: uid("alice"), episode_id: lib.ids.Hour, is_vidsite: false })).status).toBe(200);
    const playlist = {
      user_id: uid("alice"),
      name: "Short ones",
      include_unplayed: true,
      include_partially_played: true,
      include_played: true,
      sort_order: "date_desc",
      group_by_podcast: false,
      icon_name: "ph-list",
      max_duration: 1000,
    };
    expect((await a.post("/api/data/create_playlist", playlist)).status).toBe(200);
    expect(
      (
        await api(lib.server.url)
          .put("/api/data/user/set_theme")
          .set("Api-Key", users().bob.key)
          .send({ user_id: uid("bob"), new_theme: "dark" })
      ).status,
    ).toBe(200);
    expect((await b.post("/api/data/user/set_playback_speed", { user_id: uid("bob"), playback_speed: 1.5 })).status).toBe(200);
  });
  afterAll(async () => {
    await restored?.stop();
    await lib?.stop();
  });

  test("get_unmatched_podcasts lists subscriptions without a podcast index id; ignore_podcast_index_id moves one to get_ignored_podcasts", async () => {
    const a = as(lib.server.url, "alice");
    const unmatched = await a.post("/api/data/get_unmatched_podcasts", { user_id: uid("alice") });
    expect(unmatched.status).toBe(200);
    expect(unmatched.body.podcasts.map((p: any) => p.podcast_id).sort()).toEqual([lib.shared, lib.own].sort());
    expect(Object.keys(unmatched.body.podcasts[0]).sort()).toEqual(["artwork_url", "author", "description", "feed_url", "podcast_id", "podcast_name"]);
    expect((await a.post("/api/data/ignore_podcast_index_id", { user_id: uid("alice"), podcast_id: lib.own, ignore: true })).body).toEqual({
      detail: "Podcast index ID requirement ignored",
      message: "Podcast index ID requirement ignored",
    });
    expect((await a.post("/api/data/get_unmatched_podcasts", { user_id: uid("alice") })).body.podcasts.map((p: any) => p.podcast_name)).toEqual([
      "Shared Show",
    ]);
    expect((await a.post("/api/data/get_ignored_podcasts", { user_id: uid("alice") })).body.podcasts.map((p: any) => p.podcast_name)).toEqual([
      "Alpha Own Show",
    ]);
    // Per user: bob's subscription of the shared feed is his own matter; a podcast with an index id is matched.
    expect((await as(lib.server.url, "bob").post("/api/data/get_ignored_podcasts", { user_id: uid("bob") })).body).toEqual({ podcasts: [] });
    expect(
      (
        await api(lib.server.url)
          .put("/api/data/update_podcast_info")
          .set("Api-Key", users().bob.key)
          .send({ user_id: uid("bob"), podcast_id: lib.shared, podcast_index_id: 4242 })
      ).status,
    ).toBe(200);
    expect((await as(lib.server.url, "bob").post("/api/data/get_unmatched_podcasts", { user_id: uid("bob") })).body).toEqual({ podcasts: [] });
    expectErrorBody(await as(lib.server.url, "bob").post("/api/data/get_unmatched_podcasts", { user_id: uid("alice") }), 403);
    expectErrorBody(await a.post("/api/data/ignore_podcast_index_id", { user_id: uid("alice"), podcast_id: 999999, ignore: true }), 404);
  });

  test("backup_server: admins only, with BACKUP_PASSWORD or their own password as database_pass", async () => {
    expectErrorBody(await raw(lib, "post", "/api/data/backup_server", null).send({ database_pass: PASSWORD }), 401);
    expectErrorBody(await raw(lib, "post", "/api/data/backup_server", users().alice.key).send({ database_pass: PASSWORD }), 403);
    expectErrorBody(await raw(lib, "post", "/api/data/backup_server", users().admin.key).send({ database_pass: "wrong password" }), 403);
    expectErrorBody(await raw(lib, "post", "/api/data/backup_server", users().admin.key).send({}), 400);
    // Wrong guesses count as failed logins of the admin: a stolen key cannot guess the password freely.
    const limit = config.loginMaxFailures;
    config.loginMaxFailures = 2;
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await raw(lib, "post", "/api/data/backup_server", users().admin.key).send({ database_pass: `guess ${i}` })).status);
      expect(statuses).toContain(429);
    } finally {
      config.loginMaxFailures = limit;
    }
    config.backupPassword = "the backup password";
    try {
      const res = await backup(lib.server.url, "admin", { database_pass: "the backup password" });
      expect(res.status).toBe(200);
      expect(lines(res.body)[0].format).toBe("podcast-server-backup");
    } finally {
      config.backupPassword = "";
    }
  });

  test("a backup restored into a fresh DATA_DIR by `npm run restore` answers the same reads, keeps old keys, hands out fresh ids", async () => {
    const before = await snapshot(lib.server.url);
    const res = await backup(lib.server.url, "admin", { database_pass: PASSWORD }, { "Accept-Encoding": "identity" });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/octet-stream");
    expect(res.headers["content-disposition"]).toMatch(/^attachment; filename="podcast-server-backup_\d{8}_\d{9}\.jsonl"$/);
    original = { file: res.body, reads: before };
    const all = lines(res.body);
    expect(all[0]).toEqual({ format: "podcast-server-backup", version: 1, created_at: expect.any(String), server_version: expect.any(String) });
    expect(all[all.length - 1]).toEqual({ end: true, records: all.length - 2 });
    const records = all.slice(1, -1);
    const collections = new Set(records.map((r) => `${r.service}.${r.collection}`));
    expect([...collections]).toEqual(
      expect.arrayContaining(["users.users", "users.counters", "podcasts.podcasts", "podcasts.subscriptions", "podcasts.counters", "playlists.counters"]),
    );
    expect([...collections].some((c) => c.startsWith("auth."))).toBe(true);
    // The counters come along, so that ids made after a restore cannot collide.
    const userIds = records.filter((r) => r.collection === "users").map((r) => r.doc._id);
    expect(Math.max(...records.filter((r) => r.service === "users" && r.collection === "counters").map((r) => r.doc.seq))).toBeGreaterThanOrEqual(
      Math.max(...userIds),
    );
    // Secrets stay as they are at rest: password hashes, key hashes; never a clear key.
    const admin = records.find((r) => r.collection === "users" && r.doc.username === "admin").doc;
    expect(admin.hashed_pw).toMatch(/^\$argon2id\$/);
    expect(res.body.toString("utf8")).not.toContain(users().alice.key);

    // The same file gzip-encoded on the wire, and as a .jsonl.gz file.
    const wire = await backup(lib.server.url, "admin", { database_pass: PASSWORD }, { "Accept-Encoding": "gzip" });
    expect(wire.headers["content-encoding"]).toBe("gzip");
    const gz = await backup(lib.server.url, "admin", { database_pass: PASSWORD, gzip: true }, { "Accept-Encoding": "identity" });
    expect(gz.headers["content-type"]).toBe("application/gzip");
    expect(gz.headers["content-disposition"]).toMatch(/\.jsonl\.gz"$/);
    expect([gz.body[0], gz.body[1]]).toEqual([0x1f, 0x8b]);
    const steady = (list: any[]) => list.filter((r) => r.collection !== "backup_state"); // the scheduler lease is renewed meanwhile
    expect(steady(lines(gz.body).slice(1))).toEqual(steady(all.slice(1)));

    await lib.server.stop();
    const file = path.join(tempDir("podcast-backup-file-"), "server.jsonl.gz");
    fs.writeFileSync(file, gz.body);
    const fresh = tempDir();
    const run = await runRestore(file, fresh);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(JSON.parse(run.stdout.trim().split("\n").pop()!)).toMatchObject({ records: all.length - 2 });
    // A second restore into the now non-empty store is refused and changes nothing.
    const again = await runRestore(file, fresh);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already has accounts/);

    restored = await startServer({ dataDir: fresh });
    expect(await snapshot(restored.url)).toEqual(before);
    expect((await api(restored.url).get("/api/data/verify_key").set("Api-Key", users().alice.key)).status).toBe(200);
    const login = await api(restored.url).get("/api/data/get_key").set("Authorization", basic("bob", PASSWORD));
    expect(login.status).toBe(200);
    // New records get ids past the restored ones.
    const maxUser = Math.max(...records.filter((r) => r.collection === "users").map((r) => r.doc._id));
    const carol = await api(restored.url)
      .post("/api/data/add_user")
      .set("Api-Key", users().admin.key)
      .send({ fullname: "Carol", username: "carol", email: "carol@example.org", hash_pw: PASSWORD });
    expect(carol.status).toBe(200);
    expect(carol.body.user_id).toBeGreaterThan(maxUser);
    const playlists = (before["alice.playlists"] as any).playlists.map((p: any) => p.playlist_id);
    const created = await as(restored.url, "alice").post("/api/data/create_playlist", {
      user_id: uid("alice"),
      name: "After restore",
      include_unplayed: true,
      include_partially_played: true,
      include_played: true,
      sort_order: "date_desc",
      group_by_podcast: false,
      icon_name: "ph-list",
    });
    expect(created.status).toBe(200);
    expect(created.body.playlist_id).toBeGreaterThan(Math.max(...playlists));
  });

  test("scheduled backups land in BACKUP_DIR; list, delete (bare names only) and restore_backup_file work on them", async () => {
    const url = restored!.url;
    const admin = as(url, "admin");
    expectErrorBody(await as(url, "alice").post("/api/data/schedule_backup", { user_id: uid("alice"), cron_schedule: "* * * * * *", enabled: true }), 403);
    expectErrorBody(await admin.post("/api/data/schedule_backup", { user_id: uid("admin"), cron_schedule: "every day", enabled: true }), 400);
    expect((await admin.post("/api/data/get_scheduled_backup", { user_id: uid("admin") })).body).toMatchObject({ schedule: null, enabled: false });
    const set = await admin.post("/api/data/schedule_backup", { user_id: uid("admin"), cron_schedule: "* * * * * *", enabled: true });
    expect(set.body).toEqual({ detail: "Backup schedule updated successfully", schedule: "* * * * * *", enabled: true });
    const listed = async () => (await admin.post("/api/data/list_backup_files", { user_id: uid("admin") })).body.backup_files as any[];
    await until(async () => (await listed()).some((f) => f.filename.startsWith("scheduled_backup_")), 15_000);
    await admin.post("/api/data/schedule_backup", { user_id: uid("admin"), cron_schedule: "* * * * * *", enabled: false });
    const schedule = (await admin.post("/api/data/get_scheduled_backup", { user_id: uid("admin") })).body;
    expect(schedule).toMatchObject({
      schedule: "* * * * * *",
      enabled: false,
      last_run: expect.any(String),
      last_file: expect.stringMatching(/^scheduled_backup_.*\.jsonl\.gz$/),
    });
    await until(async () => !!(await listed()).find((f) => f.filename === schedule.last_file), 5_000);
    const file = (await listed()).find((f) => f.filename === schedule.last_file);
    expect(file).toEqual({
      filename: schedule.last_file,
      size: fs.statSync(path.join(config.backupDir, schedule.last_file)).size,
      modified: expect.any(Number),
      modified_at: expect.any(String),
    });
    expect(lines(fs.readFileSync(path.join(config.backupDir, file.filename)))[0].format).toBe("podcast-server-backup");

    // restore_backup_file replaces all data with the file's: Carol (created after the restore, before the schedule) stays, a later user goes.
    const before = await snapshot(url);
    const dave = await api(url)
      .post("/api/data/add_user")
      .set("Api-Key", users().admin.key)
      .send({ fullname: "Dave", username: "dave", email: "dave@example.org", hash_pw: PASSWORD });
    expect(dave.status).toBe(200);
    const daveKey = (await api(url).get("/api/data/get_key").set("Authorization", basic("dave", PASSWORD))).body.retrieved_key;
    expect((await api(url).get("/api/data/verify_key").set("Api-Key", daveKey)).status).toBe(200); // now in the gateway's key cache
    expectErrorBody(await as(url, "alice").post("/api/data/restore_backup_file", { user_id: uid("alice"), backup_filename: file.filename }), 403);
    const done = await admin.post("/api/data/restore_backup_file", { user_id: uid("admin"), backup_filename: file.filename });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ detail: "Restore completed", backup_filename: file.filename, records: expect.any(Number) });
    expect(await snapshot(url)).toEqual(before);
    const logins = async (name: string) => (await api(url).get("/api/data/get_key").set("Authorization", basic(name, PASSWORD))).status;
    expect(await logins("carol")).toBe(200);
    expect(await logins("dave")).toBe(401);
    expectErrorBody(await api(url).get("/api/data/verify_key").set("Api-Key", daveKey), 401); // caches dropped on backup.restored

    // Names only inside BACKUP_DIR.
    fs.writeFileSync(path.join(path.dirname(config.backupDir), "outside.jsonl"), "x");
    for (const bad of ["../outside.jsonl", "/etc/passwd", "a/b.jsonl", "..", "./x.jsonl", "..\\outside.jsonl", ".hidden.jsonl"]) {
      expectErrorBody(await admin.post("/api/data/delete_backup_file", { backup_filename: bad }), 400);
      expectErrorBody(await admin.post("/api/data/restore_backup_file", { user_id: uid("admin"), backup_filename: bad }), 400);
    }
    expect(fs.existsSync(path.join(path.dirname(config.backupDir), "outside.jsonl"))).toBe(true);
    expectErrorBody(await admin.post("/api/data/delete_backup_file", { backup_filename: "missing.jsonl" }), 404);
    expectErrorBody(await as(url, "alice").post("/api/data/delete_backup_file", { backup_filename: file.filename }), 403);
    const content = zlib.gunzipSync(fs.readFileSync(path.join(config.backupDir, file.filename))).toString("utf8");
    expect((await admin.post("/api/data/delete_backup_file", { backup_filename: file.filename })).body).toEqual({
      detail: "Backup file deleted",
      backup_filename: file.filename,
    });
    expect((await listed()).map((f) => f.filename)).not.toContain(file.filename);
    // A cut file is refused before anything changes.
    const cut = path.join(config.backupDir, "cut.jsonl");
    fs.writeFileSync(cut, content.split("\n").slice(0, 5).join("\n") + "\n");
    expectErrorBody(await admin.post("/api/data/restore_backup_file", { user_id: uid("admin"), backup_filename: "cut.jsonl" }), 400);
    expect(await logins("carol")).toBe(200);
    // The restored schedule (enabled when that file was written) is turned off again.
    expect((await admin.post("/api/data/schedule_backup", { user_id: uid("admin"), cron_schedule: "0 3 * * *", enabled: false })).status).toBe(200);
  });

  test("restore_server restores an uploaded file (multipart field backup_file), replacing the data", async () => {
    const url = restored!.url;
    const upload = (who: string, file: Buffer | null, field = "backup_file") => {
      const req = api(url).post("/api/data/restore_server").set("Api-Key", users()[who].key);
      return file ? req.attach(field, file, "server.jsonl") : req.field("database_pass", PASSWORD);
    };
    const erin = await api(url)
      .post("/api/data/add_user")
      .set("Api-Key", users().admin.key)
      .send({ fullname: "Erin", username: "erin", email: "erin@example.org", hash_pw: PASSWORD });
    expect(erin.status).toBe(200);
    expectErrorBody(await upload("alice", original!.file), 403);
    expectErrorBody(await upload("admin", original!.file, "other"), 400);
    expectErrorBody(await upload("admin", Buffer.from("not a backup\n")), 400);
    const done = await upload("admin", original!.file);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ detail: "Restore completed", backup_filename: "server.jsonl", records: lines(original!.file).length - 2 });
    expect(await snapshot(url)).toEqual(original!.reads);
    for (const name of ["erin", "carol"]) expect((await api(url).get("/api/data/get_key").set("Authorization", basic(name, PASSWORD))).status).toBe(401);
    // The upload was kept only for the time of the restore.
    expect(fs.readdirSync(config.backupDir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  test("an interrupted scheduled backup is never listed nor counted by BACKUP_KEEP; the partial file of a killed run goes with the next backup", async () => {
    const server = restored!;
    const admin = as(server.url, "admin");
    const listed = async () => ((await admin.post("/api/data/list_backup_files", { user_id: uid("admin") })).body.backup_files as any[]).map((f) => f.filename);
    const partials = () => fs.readdirSync(config.backupDir).filter((f) => f.endsWith(".partial"));
    const backups: any = server.broker.getLocalService("backups");
    // What a process killed mid-backup leaves: newer by name than any backup, untouched for an hour.
    const killed = "scheduled_backup_29991231_000000000.jsonl.gz.partial";
    fs.writeFileSync(path.join(config.backupDir, killed), "half a backup");
    const hourAgo = new Date(Date.now() - 3_600_000);
    fs.utimesSync(path.join(config.backupDir, killed), hourAgo, hourAgo);
    // A store whose export breaks half-way: the backup fails after some bytes are written.
    const broken = server.broker.createService({
      name: "zz_broken",
      actions: {
        backup_export: () =>
          Readable.from(
            (async function* () {
              yield Buffer.from('{"collection":"x"}\n');
              throw new Error("disk gone");
            })(),
          ),
      },
    });
    await server.broker.waitForServices("zz_broken");
    const before = await listed();
    await backups.runScheduled(new Date(Date.UTC(2030, 0, 1)));
    await server.broker.destroyService(broken);
    expect(await listed()).toEqual(before);
    expect(partials()).toEqual([killed]);
    const keep = config.backupKeep;
    config.backupKeep = 1;
    try {
      await backups.runScheduled(new Date(Date.UTC(2030, 0, 2)));
    } finally {
      config.backupKeep = keep;
    }
    expect((await listed()).filter((f) => f.startsWith("scheduled_backup_"))).toEqual(["scheduled_backup_20300102_000000000.jsonl.gz"]);
    expect(partials()).toEqual([]);
  });
});
