/**
 * Server backups across processes over a real NATS server: the gateway, the backups service and the
 * accounts services each in their own process. Each service's export streams to the backups process
 * over the transporter, and a restore hands the records back to their owners there, dropping the key
 * cache of the gateway process.
 */
import fs from "fs";
import path from "path";
import { api, basic, expectErrorBody } from "../helpers/client";
import { tempDir } from "../helpers/server";
import { clusterPeers, ensureBuilt, findNatsServer, freePort, Proc, startNode, waitClusterHealthy } from "../helpers/processes";

const natsBin = findNatsServer();
const externalNats = process.env.NATS_URL;
const describeCluster = natsBin || externalNats ? describe : describe.skip;

describeCluster("server backups, cluster runtime (gateway, backups and accounts over NATS)", () => {
  const procs: Record<string, Proc> = {};
  let peers: Awaited<ReturnType<typeof clusterPeers>> | null = null;
  let url = "";
  const backupDir = tempDir("podcast-cluster-backups-");

  beforeAll(async () => {
    ensureBuilt();
    peers = await clusterPeers(natsBin);
    const port = await freePort();
    const common = { ...peers.env, NAMESPACE: `bak-${process.pid}-${Date.now()}`, DATA_DIR: tempDir("podcast-cluster-bak-") };
    procs.gateway = startNode({ ...common, PORT: String(port), NODE_ID: "gateway" }, ["api"]);
    procs.backups = startNode({ ...common, NODE_ID: "backups-1", BACKUP_DIR: backupDir }, ["backups"]);
    procs.accounts = startNode({ ...common, NODE_ID: "accounts-1" }, ["users", "auth"]);
    url = `http://127.0.0.1:${port}`;
    await waitClusterHealthy([url], procs, ["auth", "users", "backups"]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.stop()));
    await peers?.stop();
  });

  test("backup_server streams every service's records through the backups process; restore_backup_file gives them back", async () => {
    const http = () => api(url);
    const password = "root password";
    expect((await http().post("/api/data/create_first").send({ username: "root", password, email: "root@example.org", fullname: "Root" })).status).toBe(200);
    const adminKey = (await http().get("/api/data/get_key").set("Authorization", basic("root", password))).body.retrieved_key;
    expect(
      (
        await http()
          .post("/api/data/add_user")
          .set("Api-Key", adminKey)
          .send({ fullname: "Ivy", username: "ivy", email: "ivy@example.org", hash_pw: "ivy password" })
      ).status,
    ).toBe(200);

    const res = await http()
      .post("/api/data/backup_server")
      .set("Api-Key", adminKey)
      .set("Accept-Encoding", "identity")
      .send({ database_pass: password })
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on("data", (c: Buffer) => chunks.push(c));
        r.on("end", () => cb(null, Buffer.concat(chunks)));
      });
    expect(res.status).toBe(200);
    const lines = (res.body as Buffer)
      .toString("utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(lines[0].format).toBe("podcast-server-backup");
    expect(lines[lines.length - 1]).toEqual({ end: true, records: lines.length - 2 });
    const services = new Set(lines.slice(1, -1).map((r) => r.service));
    expect([...services].sort()).toEqual(expect.arrayContaining(["auth", "users"]));
    expect(
      lines
        .filter((r) => r.collection === "users")
        .map((r) => r.doc.username)
        .sort(),
    ).toEqual(["ivy", "root"]);

    fs.writeFileSync(path.join(backupDir, "cluster.jsonl"), res.body);
    const later = await http()
      .post("/api/data/add_user")
      .set("Api-Key", adminKey)
      .send({ fullname: "Max", username: "max", email: "max@example.org", hash_pw: "max password" });
    expect(later.status).toBe(200);
    const maxKey = (await http().get("/api/data/get_key").set("Authorization", basic("max", "max password"))).body.retrieved_key;
    expect((await http().get("/api/data/verify_key").set("Api-Key", maxKey)).status).toBe(200);

    const restored = await http().post("/api/data/restore_backup_file").set("Api-Key", adminKey).send({ backup_filename: "cluster.jsonl" });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ detail: "Restore completed", records: lines.length - 2 });
    expect((await http().get("/api/data/get_key").set("Authorization", basic("ivy", "ivy password"))).status).toBe(200);
    expect((await http().get("/api/data/get_key").set("Authorization", basic("max", "max password"))).status).toBe(401);
    expectErrorBody(await http().get("/api/data/verify_key").set("Api-Key", maxKey), 401);
    expect((await http().get("/api/data/verify_key").set("Api-Key", adminKey)).status).toBe(200);
  });
});
