/** The DATA_DIR lock: a live holder keeps others out; a dead one's lock is taken over whatever pid it names. */
import fs from "fs";
import os from "os";
import path from "path";
import { lockDataDir } from "../../shared/data-lock";
import { tempDir } from "../helpers/server";

/** A lock left by a crashed process: the lock directory with the given age and its owner file. */
function forge(dir: string, name: string, owner: { host: string; pid: number }, ageMs: number) {
  const lock = path.join(dir, `${name}.lock`);
  fs.mkdirSync(lock);
  const when = new Date(Date.now() - ageMs);
  fs.utimesSync(lock, when, when);
  fs.writeFileSync(`${lock}-owner.json`, JSON.stringify(owner));
}

const timed = async (fn: () => Promise<unknown>) => {
  const start = Date.now();
  await fn();
  return Date.now() - start;
};
const fail = (err: Error) => {
  throw err;
};

describe("lockDataDir", () => {
  test("a second taker is refused with the holder named while the holder refreshes; free again after release", async () => {
    const dir = tempDir("data-lock-");
    const release = await lockDataDir(dir, "users.service", fail);
    const start = Date.now();
    await expect(lockDataDir(dir, "users.service", fail)).rejects.toThrow(`is in use by ${os.hostname()} pid ${process.pid}`);
    expect(Date.now() - start).toBeLessThan(4_000);
    await release();
    await (
      await lockDataDir(dir, "users.service", fail)
    )();
  });

  test("a standby waits while the holder refreshes and takes the lock soon after its release", async () => {
    const dir = tempDir("data-lock-");
    const release = await lockDataDir(dir, "queue.service", fail);
    let takenAt = 0;
    const waits: string[] = [];
    const standby = lockDataDir(dir, "queue.service", fail, { waitMs: 30_000, onWait: (h) => waits.push(h) }).then((r) => ((takenAt = Date.now()), r));
    await new Promise((r) => setTimeout(r, 2_500));
    expect(takenAt).toBe(0);
    expect(waits).toEqual([`${os.hostname()} pid ${process.pid}`]);
    const releasedAt = Date.now();
    await release();
    await (
      await standby
    )();
    expect(takenAt - releasedAt).toBeLessThan(1_500);
  });

  test("a fresh lock naming this host and our own pid (container restart) is taken within ~3 s", async () => {
    const dir = tempDir("data-lock-");
    forge(dir, "auth.service", { host: os.hostname(), pid: process.pid }, 0);
    let release: () => Promise<void> = async () => {};
    const ms = await timed(async () => (release = await lockDataDir(dir, "auth.service", fail)));
    expect(ms).toBeLessThan(4_500);
    await release();
  });

  test("a lock naming a live process of this host (a reused pid) is taken once it is 10 s without refresh", async () => {
    const dir = tempDir("data-lock-");
    forge(dir, "feeds.service", { host: os.hostname(), pid: process.ppid }, 9_000);
    const ms = await timed(async () => (await lockDataDir(dir, "feeds.service", fail))());
    expect(ms).toBeGreaterThanOrEqual(500);
    expect(ms).toBeLessThan(3_000);
  });
});
