#!/usr/bin/env node
/**
 * Run after any change of dependencies (`npm install ...`): the registry mirror of our build machines
 * serves only the Linux builds of unrs-resolver (a Jest dependency), so npm leaves the other platforms'
 * optional bindings out of package-lock.json and `npm ci` then calls the lock out of sync on every
 * machine. This adds the missing entries (version, os, cpu, libc; npm fetches and installs them only on
 * the matching platform). test/unit/lockfile.test.ts fails while any are missing.
 */
const fs = require("fs");
const path = require("path");
const file = path.join(__dirname, "..", "package-lock.json");
const lock = JSON.parse(fs.readFileSync(file, "utf8"));

/** "@unrs/resolver-binding-linux-arm64-musl" -> { os, cpu, libc } */
function platformOf(name) {
  const m = name.match(/^@unrs\/resolver-binding-([a-z0-9]+)-([a-z0-9]+)(?:-(\w+))?$/);
  if (!m) return null;
  const [, os, cpu, abi] = m;
  const entry = { cpu: [cpu] };
  if (os === "linux") entry.libc = [/musl/.test(abi ?? "") ? "musl" : "glibc"];
  entry.os = [os];
  return entry;
}

/**
 * Optional dependencies of one other platform that the mirror does not serve at all (404), so npm can neither
 * resolve nor skip them by their os: vite's Windows-only process helper. Described here; never fetched on Linux.
 */
const OTHER_PLATFORM_ONLY = {
  "napi-windows-process-start-time": { cpu: ["x64", "arm64"], os: ["win32"] },
};

let added = 0;
for (const [key, pkg] of Object.entries(lock.packages)) {
  if (!pkg.optionalDependencies) continue;
  const base = key === "" ? "" : key + "/";
  for (const [dep, version] of Object.entries(pkg.optionalDependencies)) {
    if (lock.packages[`node_modules/${dep}`] || lock.packages[`${base}node_modules/${dep}`]) continue;
    const platform = platformOf(dep) ?? OTHER_PLATFORM_ONLY[dep];
    if (!platform) continue; // only the bindings we know how to describe; the test reports any other gap
    const { libc, ...rest } = platform;
    lock.packages[`node_modules/${dep}`] = {
      version: version.replace(/^[\^~]/, ""),
      cpu: rest.cpu,
      dev: pkg.dev === true || undefined,
      ...(libc ? { libc } : {}),
      license: "MIT",
      optional: true,
      os: rest.os,
    };
    added++;
  }
}
const sorted = Object.keys(lock.packages).sort((a, b) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b, "en")));
lock.packages = Object.fromEntries(sorted.map((k) => [k, lock.packages[k]]));
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + "\n");
console.log(`complete-lock: ${added} platform entries added`);
