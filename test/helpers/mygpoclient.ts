/** gPodder's own client library (python3-mygpoclient) driven from tests: the sync server checked with a real client. */
import { spawn, spawnSync } from "child_process";
import path from "path";

const CALLS = path.join(__dirname, "mygpoclient-calls.py");

/** A Python 3 that has mygpoclient (Debian's python3-mygpoclient is for /usr/bin/python3), or a loud failure. */
export function pythonWithMygpoclient(): string {
  for (const python of ["/usr/bin/python3", "python3"]) {
    if (spawnSync(python, ["-c", "import mygpoclient"]).status === 0) return python;
  }
  throw new Error("python3-mygpoclient is not installed (.ci/run installs it: apt-get install python3-mygpoclient)");
}

/** A call of mygpoclient-calls.py: [method, ...args]. */
export type MygpoCall = [string, ...unknown[]];

/**
 * Runs calls of gPodder's client library as `username` against the server (test/helpers/mygpoclient-calls.py),
 * in order, and answers what the library made of each answer. Not spawnSync: the server answers from this process.
 */
export async function mygpoclient(server: string, username: string, password: string, calls: MygpoCall[]): Promise<any[]> {
  const child = spawn(pythonWithMygpoclient(), [CALLS], { env: { ...process.env, SERVER: server, USERNAME: username, PASSWORD: password } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  child.stdin.end(JSON.stringify(calls));
  // "close": after the output is all read.
  const status = await new Promise<number | null>((resolve) => child.once("close", resolve));
  if (status !== 0) throw new Error(`mygpoclient calls failed (${status}):\n${stderr}\n${stdout}`);
  return JSON.parse(stdout);
}
