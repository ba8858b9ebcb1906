/**
 * `npm start`'s runtime as a real process: data survives a restart, and a second process on the same
 * embedded data refuses to start instead of splitting it.
 */
import { basic } from "../helpers/client";
import { tempDir } from "../helpers/server";
import { ensureBuilt, freePort, startNode, waitHealthy } from "../helpers/processes";

describe("embedded runtime as a process", () => {
  beforeAll(() => ensureBuilt());

  test("the admin can still log in after a restart; a second instance on the same DATA_DIR refuses to start", async () => {
    const dataDir = tempDir("podcast-restart-");
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const first = startNode({ DATA_DIR: dataDir, PORT: String(port), TRANSPORTER: "" });
    await waitHealthy(url);
    const created = await fetch(`${url}/api/data/create_first`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "root", password: "restart-pass", email: "root@example.org", fullname: "Root" }),
    });
    expect(created.status).toBe(200);

    const second = startNode({ DATA_DIR: dataDir, PORT: String(await freePort()), TRANSPORTER: "" });
    expect(await second.stop("SIGCONT")).not.toBe(0); // SIGCONT is harmless: this only waits for its exit
    expect(second.output()).toMatch(/is in use by/);

    await first.stop();
    const again = startNode({ DATA_DIR: dataDir, PORT: String(port), TRANSPORTER: "" });
    try {
      await waitHealthy(url);
      const login = await fetch(`${url}/api/data/get_key`, { headers: { Authorization: basic("root", "restart-pass") } });
      expect(login.status).toBe(200);
      const body = await login.json();
      expect(body.user_id).toBe((await created.json()).user_id);
      const verify = await fetch(`${url}/api/data/verify_key`, { headers: { "Api-Key": body.retrieved_key } });
      expect(verify.status).toBe(200);
      // The counters survived too: the next user gets the next id, not a reused one.
      const added = await fetch(`${url}/api/data/add_user`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Api-Key": body.retrieved_key },
        body: JSON.stringify({ username: "second", hash_pw: "second-pass", email: "second@example.org", fullname: "Second" }),
      });
      expect((await added.json()).user_id).toBe(body.user_id + 1);
    } finally {
      await again.stop();
    }
  }, 90_000);
});
