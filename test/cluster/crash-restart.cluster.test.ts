/**
 * `npm start`'s runtime killed with SIGKILL (no clean-up, its locks left behind) starts again at once,
 * also when the left-behind locks name this host and the very pid the new process gets, as in a
 * container restarted after a crash; and every write it acknowledged before the kill is there.
 */
import fs from "fs";
import path from "path";
import { basic } from "../helpers/client";
import { tempDir } from "../helpers/server";
import { ensureBuilt, freePort, startNode, waitHealthy } from "../helpers/processes";

const SERVICE_NAMES = fs
  .readdirSync(path.join(__dirname, "..", "..", "services"))
  .filter((f) => f.endsWith(".service.ts"))
  .map((f) => f.split(".")[0]);

describe("restart after a crash on the embedded store", () => {
  beforeAll(() => ensureBuilt());

  test("kill -9 during a burst of writes, then start again at once with forged locks of the same host and pid", async () => {
    const dataDir = tempDir("podcast-crash-");
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { DATA_DIR: dataDir, PORT: String(port), TRANSPORTER: "" };
    const first = startNode(env);
    await waitHealthy(url);
    const post = (p: string, body: object, key?: string) =>
      fetch(`${url}${p}`, { method: "POST", headers: { "Content-Type": "application/json", ...(key ? { "Api-Key": key } : {}) }, body: JSON.stringify(body) });
    expect((await post("/api/data/create_first", { username: "root", password: "crash-pass", email: "root@example.org", fullname: "Root" })).status).toBe(200);
    const key = (await (await fetch(`${url}/api/data/get_key`, { headers: { Authorization: basic("root", "crash-pass") } })).json()).retrieved_key;

    // Four writers add users until the kill; only the answers that arrived count as accepted.
    const accepted: { id: number; username: string }[] = [];
    let n = 0;
    const writer = async () => {
      for (;;) {
        const username = `burst${n++}`;
        const res = await post("/api/data/add_user", { username, hash_pw: "burst-pass", email: `${username}@example.org`, fullname: username }, key).catch(
          () => null,
        );
        if (!res) return;
        if (res.status === 200) accepted.push({ id: (await res.json()).user_id, username });
      }
    };
    const writers = Promise.all([writer(), writer(), writer(), writer()]);
    while (accepted.length < 12) await new Promise((r) => setTimeout(r, 20));
    expect(await first.stop("SIGKILL")).toBeNull();
    await writers;

    // What a container restart leaves: the old lock files (hostname + pid) and the new locks, fresh,
    // all naming this host and the pid the restarted server gets ($$ of the shell that execs node).
    const forge = SERVICE_NAMES.map((s) => {
      const lock = path.join(dataDir, `${s}.service.lock`);
      return `mkdir -p '${lock}'; touch '${lock}'; printf '{"host":"%s","pid":%s}' "$(uname -n)" $$ > '${lock}-owner.json'; printf '%s %s' "$(uname -n)" $$ > '${path.join(dataDir, `${s}.db.lock`)}'`;
    }).join("\n");
    const started = Date.now();
    const again = startNode(env, undefined, forge);
    try {
      await waitHealthy(url, 30_000).catch((err) => {
        console.error(again.output());
        throw err;
      });
      const seconds = (Date.now() - started) / 1000;
      console.log(`restart after kill -9 with forged same-pid locks: healthy after ${seconds.toFixed(1)} s, ${accepted.length} accepted writes`);
      expect(seconds).toBeLessThan(15);
      const login = await (await fetch(`${url}/api/data/get_key`, { headers: { Authorization: basic("root", "crash-pass") } })).json();
      for (const { id, username } of accepted) {
        const res = await fetch(`${url}/api/data/user_details_id/${id}`, { headers: { "Api-Key": login.retrieved_key } });
        expect(res.status).toBe(200);
        expect((await res.json()).Username).toBe(username);
      }
    } finally {
      await again.stop();
    }
  }, 120_000);
});
