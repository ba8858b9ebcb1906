/**
 * The lock that keeps a second instance of a service off its embedded (NeDB) data: one lock per service
 * under DATA_DIR, because a cluster without MongoDB runs each stateful service as one process over a
 * shared DATA_DIR.
 *
 * proper-lockfile makes the lock a directory whose mtime the holder refreshes every UPDATE_MS; a lock
 * not refreshed for STALE_MS belongs to a dead process, whatever pid or hostname it names, so a
 * container restarted after a crash (same hostname, same pid 1) starts again. Timings:
 * - a holder that is seen refreshing its lock is alive: a second instance refuses within ~1-2 s;
 * - the holder recorded in the owner file ran on this host and its pid is gone or is our own: its lock
 *   counts as stale after DEAD_HOLDER_STALE_MS (3 s) without a refresh;
 * - otherwise (another host, or the pid was reused by another process) after STALE_MS (10 s).
 * A standby waits up to standby.waitMs for a live holder to let go instead of refusing: the process that
 * replaces a one-instance node starts before that node stops and takes over at once.
 */
import fs from "fs";
import os from "os";
import path from "path";
import lockfile from "proper-lockfile";

const UPDATE_MS = 1_000;
const STALE_MS = 10_000;
const DEAD_HOLDER_STALE_MS = 3_000;
const POLL_MS = 250;

interface Owner {
  host: string;
  pid: number;
  since: string;
}

function readOwner(file: string): Owner | null {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as Owner;
  } catch {
    return null;
  }
}

function mtimeOf(file: string): number | undefined {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Our own pid cannot belong to a live holder; kill(pid, 0) fails with ESRCH only when no process has the pid. */
function holderGone(owner: Owner): boolean {
  if (owner.host !== os.hostname()) return false;
  if (owner.pid === process.pid) return true;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/**
 * Takes the lock of `name` in `dir`, waiting while a dead holder's lock goes stale; throws "... is in use
 * by ..." when a live process holds it (a standby first waits, and says so once through onWait).
 * Returns the release function. onCompromised runs when the lock is lost while held (it was not
 * refreshed in time, or someone else took it).
 */
export async function lockDataDir(
  dir: string,
  name: string,
  onCompromised: (err: Error) => void,
  standby?: { waitMs: number; onWait: (holder: string) => void },
): Promise<() => Promise<void>> {
  const target = path.join(dir, name);
  const lockPath = `${target}.lock`;
  const ownerPath = `${target}.lock-owner.json`;
  const options = { realpath: false, lockfilePath: lockPath };
  const deadline = Date.now() + STALE_MS + UPDATE_MS + POLL_MS;
  const standbyUntil = Date.now() + (standby?.waitMs ?? 0);
  let waitAnnounced = false;
  let firstSeen: number | undefined;
  for (;;) {
    const owner = readOwner(ownerPath);
    // Still refreshed within the last 3 s means alive, even when the pid says otherwise (another pid namespace).
    if (owner && holderGone(owner) && !(await lockfile.check(target, { ...options, stale: DEAD_HOLDER_STALE_MS }))) {
      fs.rmSync(lockPath, { recursive: true, force: true });
    }
    try {
      const release = await lockfile.lock(target, { ...options, stale: STALE_MS, update: UPDATE_MS, onCompromised });
      const me: Owner = { host: os.hostname(), pid: process.pid, since: new Date().toISOString() };
      fs.writeFileSync(ownerPath, JSON.stringify(me));
      return async () => {
        fs.rmSync(ownerPath, { force: true });
        await release();
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ELOCKED") throw err;
    }
    const mtime = mtimeOf(lockPath);
    firstSeen ??= mtime;
    const refreshed = mtime !== undefined && firstSeen !== undefined && mtime > firstSeen;
    const holder = readOwner(ownerPath);
    const who = holder ? `${holder.host} pid ${holder.pid}` : "another process";
    if (standby && !waitAnnounced) {
      waitAnnounced = true;
      standby.onWait(who);
    }
    if ((refreshed || Date.now() > deadline) && Date.now() > standbyUntil) {
      throw new Error(`${name} data in ${dir} is in use by ${who}: a service on the embedded store runs as one instance; set MONGO_URI to scale it out`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
