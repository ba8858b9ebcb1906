/**
 * `npm ci` on a fresh clone (CI, the Dockerfile) needs package-lock.json in sync with package.json on
 * every platform: each optional dependency named in the lock has its own entry, and npm's own check
 * (`npm ci --dry-run` in a copy holding only the two files) passes. After a dependency change, run
 * `node .ci/complete-lock.js`.
 */
import { execFileSync } from "child_process";
import fs from "fs";
import os from "os";
import path from "path";

const root = path.join(__dirname, "..", "..");
const lock = JSON.parse(fs.readFileSync(path.join(root, "package-lock.json"), "utf8"));

test("every optional dependency in the lock has an entry (all platforms, not only this one)", () => {
  const missing: string[] = [];
  for (const [key, pkg] of Object.entries<any>(lock.packages)) {
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) {
      const nested = `${key === "" ? "" : key + "/"}node_modules/${dep}`;
      if (!lock.packages[nested] && !lock.packages[`node_modules/${dep}`]) missing.push(`${dep} (of ${key || "the project"})`);
    }
  }
  expect(missing).toEqual([]);
});

test("npm ci accepts package.json and package-lock.json as they are", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lock-check-"));
  try {
    for (const f of ["package.json", "package-lock.json"]) fs.copyFileSync(path.join(root, f), path.join(dir, f));
    // Throws (non-zero exit) with npm's "not in sync" message when they disagree.
    execFileSync("npm", ["ci", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: dir, stdio: "pipe" });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
