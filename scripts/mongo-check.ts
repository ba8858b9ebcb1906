/**
 * An operator's one-command check of a MongoDB for this server: `MONGO_URI=mongodb://host/db npm run mongo-check`
 * (built to dist/scripts/mongo-check.js and run from there). One line per check, `ok`, `FAIL` or `note`; the exit
 * code is 1 when any check failed.
 *
 * 1. connect   the official driver, through shared/mongo-store.ts as the services do;
 *    server    buildInfo's version and hello's wire versions against the range this driver speaks
 *              (mongodb's lib/cmap/wire_protocol/constants.js: MIN/MAX_SUPPORTED_WIRE_VERSION);
 * 2. services  every dist/services/*.service.js (as moleculer-runner loads them) in one broker without a
 *              transporter, gateways on free loopback ports, schedulers and workers off; then
 *    health    GET /api/health until it says healthy;
 * 3. contract  the read-only cases of the store contract (test/helpers/store-contract.ts), each in a scratch
 *              collection `contract_check_<random>_<n>` of MONGO_URI's database, against the embedded store in
 *              memory: the same answers, or a known difference (a note);
 *    cleanup   every scratch collection dropped.
 *
 * What it writes: the scratch collections (created, indexed, filled, read, dropped; none of the server's
 * collections is read or written by step 3). Step 2, however, IS a start of this server version on that
 * database: the services create the indexes they declare (replacing one whose options changed; the episodes'
 * unique index may fold duplicate episodes first) and insert their default records when missing (server
 * settings, scheduler lease records), exactly as `npm start` would. The episodes service also reads its
 * catalogue (every episode) at start. Point it at the database the version you check will run on.
 */
import crypto from "crypto";
import fs from "fs";
import path from "path";
import type { AddressInfo, Server } from "net";
import { isDeepStrictEqual } from "util";
import { type BrokerOptions, ServiceBroker, type ServiceSchema } from "moleculer";
import { config } from "../shared/config";
import { MongoStore } from "../shared/mongo-store";
import { SqliteAdapter } from "../shared/sqlite-store";
import { type CaseAnswer, type ContractCase, normal, READ_ONLY_CASES, runCase } from "../test/helpers/store-contract";

/** The driver's own constants (mongodb/lib/cmap/wire_protocol/constants.js), not in its typings. */
interface WireConstants {
  MIN_SUPPORTED_WIRE_VERSION: number;
  MAX_SUPPORTED_WIRE_VERSION: number;
  MIN_SUPPORTED_SERVER_VERSION: string;
  MAX_SUPPORTED_SERVER_VERSION: string;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a file of the driver's that its typings do not declare
const WIRE = require("mongodb/lib/cmap/wire_protocol/constants") as WireConstants;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the driver's package.json, outside this project's sources
const DRIVER_VERSION = (require("mongodb/package.json") as { version: string }).version;

const SILENT = { info() {}, warn() {} };
const SUPPORTED = `driver ${DRIVER_VERSION} speaks MongoDB ${WIRE.MIN_SUPPORTED_SERVER_VERSION} to ${WIRE.MAX_SUPPORTED_SERVER_VERSION} (wire versions ${WIRE.MIN_SUPPORTED_WIRE_VERSION}-${WIRE.MAX_SUPPORTED_WIRE_VERSION})`;

export interface CheckOptions {
  /** The MongoDB to check (default: MONGO_URI, through shared/config.ts). */
  uri?: string;
  /** Where the lines go (default: stdout). */
  print?: (line: string) => void;
  /** The broker's logger while the services run (default: warnings and errors on the console). */
  logger?: BrokerOptions["logger"];
  /** How long /api/health may take to say healthy. */
  healthTimeoutMs?: number;
  /** The contract cases to run (default: every read-only case). */
  cases?: ContractCase[];
}

/** Why a server with these wire versions (from its hello) is outside what the driver speaks, or null. */
export function wireVersionProblem(hello: { minWireVersion?: number; maxWireVersion?: number }, version = "?"): string | null {
  const max = Number(hello.maxWireVersion ?? 0);
  const min = Number(hello.minWireVersion ?? 0);
  if (max < WIRE.MIN_SUPPORTED_WIRE_VERSION) return `MongoDB ${version} (wire version ${max}) is older than the ${SUPPORTED}`;
  if (min > WIRE.MAX_SUPPORTED_WIRE_VERSION) return `MongoDB ${version} (wire versions from ${min}) is newer than the ${SUPPORTED}`;
  return null;
}

/** The URI without its password, for printing. */
function shown(uri: string): string {
  return uri.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
}

function message(err: unknown): string {
  return (err as Error)?.message ?? String(err);
}

/** Every services/*.service.js beside this script's folder (*.service.ts when run from the sources), as moleculer-runner loads them. */
function serviceSchemas(): ServiceSchema[] {
  const dir = path.join(__dirname, "..", "services");
  const suffix = `.service${path.extname(__filename)}`;
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(suffix))
    .sort()
    .map((f) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- each service file found at run time, loaded as moleculer-runner does
      const mod = require(path.join(dir, f)) as ServiceSchema & { default?: ServiceSchema };
      return mod.default ?? mod;
    });
}

/** Starts every service on the URI in one broker; the gateway's address. */
async function startServices(uri: string, logger: BrokerOptions["logger"]): Promise<{ broker: ServiceBroker; url: string }> {
  // The switches of shared/config.ts: the store, loopback on free ports, no scheduler beats, no worker claims a job.
  Object.assign(config, {
    mongoUri: uri,
    port: 0,
    host: "127.0.0.1",
    searchPort: 0,
    searchHost: "127.0.0.1",
    healthPort: 0,
    metricsPort: 0,
    refreshInterval: 0,
    syncInterval: 0,
    gpodderRetrySeconds: 0,
    autoDeleteInterval: 0,
    backupSchedulerMs: 0,
    workerConcurrency: 0,
  });
  // Loaded now, after the switches: the broker options read config when their module loads.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the switches above, which an import would precede
  const loaded = require("../moleculer.config") as BrokerOptions & { default?: BrokerOptions };
  const brokerConfig: BrokerOptions = loaded.default ?? loaded;
  const broker = new ServiceBroker({
    ...brokerConfig,
    nodeID: `mongo-check-${process.pid}-${crypto.randomBytes(3).toString("hex")}`,
    transporter: null,
    // Nothing besides MongoDB: no shared Redis cache, no metrics or probe ports of the node this runs beside.
    cacher: "Memory",
    metrics: { enabled: false },
    // A middleware is an object with a name, or the name of one of Moleculer's (a string has no name).
    middlewares: (brokerConfig.middlewares ?? []).filter((m) => (m as { name?: unknown }).name !== "NodeHealth"),
    logger,
  });
  for (const schema of serviceSchemas()) {
    // The gateways read their port and host into their settings when their modules loaded.
    const gateway = schema.name === "api" || schema.name === "search-api";
    broker.createService(gateway ? { ...schema, settings: { ...schema.settings, port: 0, ip: "127.0.0.1" } } : schema);
  }
  try {
    await broker.start();
  } catch (err) {
    await broker.stop().catch(() => undefined);
    throw err;
  }
  // moleculer-web keeps its HTTP server on the service, which Moleculer's Service type does not name.
  const api = broker.getLocalService("api") as unknown as { server: Server };
  return { broker, url: `http://127.0.0.1:${(api.server.address() as AddressInfo).port}` };
}

async function waitHealthy(url: string, timeoutMs: number): Promise<{ status: string; services: string[] }> {
  const deadline = Date.now() + timeoutMs;
  // Always set before it is read (each try either returns or sets it).
  let last: string;
  for (;;) {
    try {
      const res = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(10_000) });
      const body = (await res.json()) as { status: string; services: string[]; database: boolean };
      if (res.status === 200 && body.status === "healthy") return body;
      last = `${res.status} ${JSON.stringify(body)}`;
    } catch (err) {
      last = message(err);
    }
    if (Date.now() > deadline) throw new Error(`GET /api/health did not say healthy within ${timeoutMs} ms: ${last}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Runs the checks; resolves to the exit code (0 when every check passed). */
export async function main(opts: CheckOptions = {}): Promise<number> {
  const print = opts.print ?? ((line: string) => process.stdout.write(line + "\n"));
  const uri = opts.uri ?? config.mongoUri;
  let failed = 0;
  let passed = 0;
  const ok = (check: string, detail: string) => {
    passed++;
    print(`ok   ${check}: ${detail}`);
  };
  const fail = (check: string, detail: string) => {
    failed++;
    print(`FAIL ${check}: ${detail}`);
  };
  const note = (check: string, detail: string) => print(`note ${check}: ${detail}`);
  const summary = () => {
    print(`mongo-check: ${passed} ok, ${failed} failed`);
    return failed ? 1 : 0;
  };

  if (!uri) {
    fail("config", "MONGO_URI is not set (MONGO_URI=mongodb://host/db npm run mongo-check)");
    return summary();
  }

  // 1. The driver connects, and the server is one it speaks to.
  const probe = new MongoStore(uri, "contract_check_probe");
  probe.init(null, { logger: SILENT });
  try {
    await probe.connect();
  } catch (err) {
    const text = message(err);
    const version = /wire version/i.test(text);
    fail(version ? "server" : "connect", `${shown(uri)}: ${text}${version ? "" : ` (the ${SUPPORTED})`}`);
    return summary();
  }
  let broker: ServiceBroker | null = null;
  const scratch: MongoStore[] = [];
  /** The checks after the connection; returns early when one failure makes the rest pointless. */
  const checks = async () => {
    ok("connect", `${shown(uri)}, database "${probe.db.databaseName}"`);
    // The server's answers, as far as they are read.
    const info = (await probe.db.command({ buildInfo: 1 })) as { version?: string };
    const hello = (await probe.db.command({ hello: 1 }).catch(() => probe.db.command({ isMaster: 1 }))) as { minWireVersion?: number; maxWireVersion?: number };
    const problem = wireVersionProblem(hello, info.version);
    if (problem) return fail("server", problem);
    ok("server", `MongoDB ${info.version} (wire versions ${hello.minWireVersion ?? 0}-${hello.maxWireVersion}); the ${SUPPORTED}`);

    // 2. The services start on it and the gateway says healthy.
    try {
      const started = await startServices(uri, opts.logger ?? { type: "Console", options: { level: "warn", formatter: "short" } });
      broker = started.broker;
      ok("services", `${started.broker.services.length} services started without a transporter`);
      try {
        const health = await waitHealthy(started.url, opts.healthTimeoutMs ?? 60_000);
        ok("health", `GET /api/health says ${health.status} (${health.services.length} stores answer: ${health.services.join(", ")})`);
      } catch (err) {
        fail("health", message(err));
      }
    } catch (err) {
      fail("services", `not started: ${message(err)}`);
    }

    // 3. The contract's read-only cases in scratch collections, against the embedded store.
    const prefix = `contract_check_${crypto.randomBytes(4).toString("hex")}`;
    const taken = await probe.db.listCollections({ name: { $regex: `^${prefix}` } }, { nameOnly: true }).toArray();
    if (taken.length) return fail("contract", `collections named ${prefix}* exist already: not touched, try again`);
    const cases = opts.cases ?? READ_ONLY_CASES;
    note("contract", `${cases.length} read-only cases, each in a scratch collection ${prefix}_<n> of database "${probe.db.databaseName}"`);
    for (const [i, c] of cases.entries()) {
      const mongo = new MongoStore(uri, `${prefix}_${i + 1}`);
      const sqlite = new SqliteAdapter(null);
      mongo.init(null, { logger: SILENT });
      sqlite.init(null, { logger: SILENT });
      await mongo.connect();
      scratch.push(mongo);
      await sqlite.connect();
      let answers: [CaseAnswer, CaseAnswer];
      try {
        answers = [await runCase(c, sqlite), await runCase(c, mongo)];
      } finally {
        await sqlite.disconnect();
      }
      const [embedded, server] = answers;
      const same = isDeepStrictEqual(server.answer, embedded.answer);
      const expectedOk =
        c.expected === undefined || (isDeepStrictEqual(server.answer, normal(c.expected)) && isDeepStrictEqual(embedded.answer, normal(c.expected)));
      const check = `contract ${i + 1}`;
      if (c.differs) {
        note(check, `${c.name}: ${same ? "the known difference did not show here" : "differs, a known difference"} (${c.differs.split(". ")[0]})`);
      } else if (same && expectedOk) {
        ok(check, c.name);
      } else if (c.realServer && expectedOk) {
        note(
          check,
          `${c.name}: differs on this server, as the double cannot show (${c.realServer.split(". ")[0]}): MongoDB ${JSON.stringify(server.answer)}, the embedded store ${JSON.stringify(embedded.answer)}`,
        );
      } else {
        const threw = server.error
          ? `; MongoDB threw: ${server.error.split("\n")[0]}`
          : embedded.error
            ? `; the embedded store threw: ${embedded.error.split("\n")[0]}`
            : "";
        fail(
          check,
          `${c.name}: MongoDB answered ${JSON.stringify(server.answer).slice(0, 400)}, the embedded store ${JSON.stringify(embedded.answer).slice(0, 400)}${threw}`,
        );
      }
    }
  };
  try {
    await checks();
  } catch (err) {
    fail("check", message(err));
  } finally {
    // Scratch collections go whatever happened; the server's own collections were never named.
    let dropped = 0;
    const left: string[] = [];
    for (const store of scratch) {
      try {
        await store.collection.drop();
        dropped++;
      } catch (err) {
        if ((err as { code?: number }).code === 26)
          dropped++; // never created
        else left.push(`${store.name} (${message(err)})`);
      }
      await store.disconnect();
    }
    if (scratch.length) {
      if (left.length) fail("cleanup", `not dropped: ${left.join(", ")}`);
      else ok("cleanup", `${dropped} scratch collections dropped`);
    }
    const running = broker as ServiceBroker | null;
    if (running) await running.stop().catch((err: unknown) => fail("services", `stop: ${message(err)}`));
    await probe.disconnect();
  }
  return summary();
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`mongo-check: ${message(err)}\n`);
      process.exit(1);
    },
  );
}
