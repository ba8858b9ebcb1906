/**
 * `npm run restore -- FILE`: restores a server backup (plain or gzip) into the store of this machine's
 * settings (DATA_DIR, or MONGO_URI), with every id kept. It runs the services with a store in this
 * process, without gateways, transporter or background work (no scheduler, no workers), and refuses a
 * store that already has accounts. Stop the server first: on NeDB its data lock refuses a second process.
 */
import fs from "fs";
import path from "path";
import { ServiceBroker, ServiceSchema } from "moleculer";
import brokerConfig from "../../moleculer.config";
import { config } from "../../shared/config";
import { restoreFile } from "../../shared/contracts/backups";

const SERVICE_DIR = path.join(__dirname, "..");
/** Gateways (no HTTP during a restore) and the job runner (restored jobs wait for the real server). */
const LEFT_OUT = new Set(["api", "search-api", "workers"]);

async function main(): Promise<number> {
  const file = process.argv[2];
  if (!file || !fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
    console.error("usage: npm run restore -- FILE   (a backup_server or scheduled backup file)");
    return 2;
  }
  config.refreshInterval = 0;
  config.syncInterval = 0;
  config.backupSchedulerMs = 0;
  const broker = new ServiceBroker({ ...brokerConfig, transporter: null, nodeID: `restore-${process.pid}`, metrics: { enabled: false } });
  for (const name of fs
    .readdirSync(SERVICE_DIR)
    .filter((f) => /\.service\.(js|ts)$/.test(f) && !f.endsWith(".d.ts"))
    .sort()) {
    // Each service file found in the folder, loaded by name at run time (as moleculer-runner loads them).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file found at run time, loaded as the runner does
    const mod = require(path.join(SERVICE_DIR, name)) as { default?: ServiceSchema };
    const schema: ServiceSchema = mod.default ?? (mod as ServiceSchema);
    if (!LEFT_OUT.has(schema.name)) broker.createService(schema);
  }
  await broker.start();
  try {
    const result = await restoreFile(broker, { file: path.resolve(file) }, { timeout: 0 });
    console.log(JSON.stringify({ restored: path.resolve(file), data: config.mongoUri ? "MONGO_URI" : config.dataDir, ...result }));
    return 0;
  } catch (err) {
    console.error(`restore failed: ${(err as Error | null)?.message ?? String(err)}`);
    return 1;
  } finally {
    await broker.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error | null) => {
    console.error(`restore failed: ${err?.message ?? err}`);
    process.exit(1);
  },
);
