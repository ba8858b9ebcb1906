/**
 * Starts the whole gateway with its services in this process on a random port, the embedded runtime
 * that `npm start` uses (NeDB files in a temp DATA_DIR unless one is given).
 */
import fs from "fs";
import os from "os";
import path from "path";
import { BrokerOptions, ServiceBroker, ServiceSchema } from "moleculer";
import brokerConfig from "../../moleculer.config";
import { config } from "../../shared/config";
import { unindexedQueries } from "./mongo-indexes";
import { type MongoWire, startMongoWire } from "./mongo-wire";

/** Every services/*.service.ts, as `npm start` (moleculer-runner) loads them: a new service needs no line here. */
const SERVICE_DIR = path.join(__dirname, "..", "..", "services");
export const ALL_SERVICES: ServiceSchema[] = fs
  .readdirSync(SERVICE_DIR)
  .filter((f) => f.endsWith(".service.ts"))
  .sort()
  .map((f) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- each service file found in the folder, loaded by name as the runner does
    const mod = require(path.join(SERVICE_DIR, f));
    return (mod.default ?? mod) as ServiceSchema;
  });

export interface TestServer {
  broker: ServiceBroker;
  url: string;
  /** The search service's gateway, when it is among the services. */
  searchUrl: string;
  dataDir: string;
  stop(): Promise<void>;
}

export function tempDir(prefix = "podcast-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * allowPrivate: OUTBOUND_ALLOW_PRIVATE of the server. By default 127.0.0.1/32, so that normal users of the
 * tests can subscribe to feeds of test/helpers/loopback.ts; the outbound policy suite passes "false".
 */
/**
 * With TEST_STORE=mongo (the "mongo" Jest project), servers run on the MongoDB path: the official driver
 * against the wire double of test/helpers/mongo-wire.ts, one double per test file, a database per server.
 */
let wire: Promise<MongoWire> | null = null;
/** A server started again on the same DATA_DIR (a restart) finds the same database. */
const databaseOf = new Map<string, string>();
if (process.env.TEST_STORE === "mongo") {
  afterAll(async () => {
    const double = await wire;
    if (!double) return;
    // Every query this file's servers sent has an index to use (test/helpers/mongo-indexes.ts).
    const unindexed = [...databaseOf.values()].flatMap((uri) => unindexedQueries(double, new URL(uri).pathname.slice(1)));
    await double.close();
    if (process.env.MONGO_INDEX_REPORT) fs.appendFileSync(process.env.MONGO_INDEX_REPORT, unindexed.map((q) => JSON.stringify(q) + "\n").join(""));
    else expect(unindexed).toEqual([]);
  });
}

async function storeUri(dataDir: string): Promise<string> {
  if (process.env.TEST_STORE !== "mongo") return "";
  wire ??= startMongoWire();
  if (!databaseOf.has(dataDir)) databaseOf.set(dataDir, (await wire).uri(`podcasts_${databaseOf.size + 1}`));
  return databaseOf.get(dataDir)!;
}

/** mongoUri: run on this MongoDB (a wire double of the test's own) whatever TEST_STORE says. */
export async function startServer(
  opts: { dataDir?: string; services?: ServiceSchema[]; broker?: BrokerOptions; allowPrivate?: string; mongoUri?: string } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? tempDir();
  config.dataDir = dataDir;
  config.mongoUri = opts.mongoUri ?? (await storeUri(dataDir));
  config.outboundAllowPrivate = opts.allowPrivate ?? "127.0.0.1/32";
  config.port = 0;
  config.host = "127.0.0.1";
  const broker = new ServiceBroker({ ...brokerConfig, transporter: null, logger: false, nodeID: `test-${process.pid}-${Date.now()}`, ...opts.broker });
  // The gateways read their port and host into their settings when their modules loaded: a test server takes free loopback ports.
  for (const schema of opts.services ?? ALL_SERVICES) {
    const gateway = schema.name === "api" || schema.name === "search-api";
    broker.createService(gateway ? { ...schema, settings: { ...schema.settings, port: 0, ip: "127.0.0.1" } } : schema);
  }
  await broker.start();
  const urlOf = (name: string) => {
    const gateway: any = broker.getLocalService(name);
    return gateway ? `http://127.0.0.1:${gateway.server.address().port}` : "";
  };
  return { broker, url: urlOf("api"), searchUrl: urlOf("search-api"), dataDir, stop: () => broker.stop() };
}

/** Lets X-Forwarded-For play the clients' addresses: the test's loopback peer becomes a trusted proxy. Returns the undo. */
export function trustLoopbackProxy(): () => void {
  const before = config.trustedProxies;
  config.trustedProxies = ["127.0.0.1", "::1"];
  return () => {
    config.trustedProxies = before;
  };
}
