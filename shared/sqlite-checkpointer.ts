/**
 * Checkpoints of the embedded store's write-ahead logs, off the event loop.
 *
 * SQLite copies a WAL back into its database file at a checkpoint, and with synchronous=NORMAL a
 * checkpoint is where it fsyncs (the commits themselves do not). Left to SQLite, the write that fills the
 * WAL past 1,000 pages runs the checkpoint inline: with better-sqlite3 on the event loop, every request of
 * the process waited for those fsyncs, tens to hundreds of ms on a busy disk (bench/RESULTS.md
 * "Household"). Here a worker thread with connections of its own checkpoints each file whose WAL has grown
 * past CHECKPOINT_BYTES, PASSIVE (it never waits for, nor blocks, the process's readers and writers).
 * The process's own connections keep SQLite's automatic checkpoint as a backstop at a far larger WAL.
 */
import { Worker } from "worker_threads";

/** A WAL past this size is checkpointed by the worker (SQLite's default is 1,000 pages, ~4 MB). */
export const CHECKPOINT_BYTES = 4 * 1024 * 1024;
/** Pages of WAL at which a connection of the process checkpoints inline after all (the worker is late or gone). */
export const BACKSTOP_PAGES = 50_000;
const INTERVAL_MS = 500;

/**
 * The thread's code: its own connection to each watched file, a PASSIVE checkpoint of each whose WAL is
 * past the size. Plain JavaScript run by the Worker as is (the same under ts-jest and from dist/).
 */
const THREAD = `
const fs = require("fs");
const { parentPort, workerData } = require("worker_threads");
const Database = require(workerData.sqlite);
const open = new Map();
parentPort.on("message", (msg) => {
  if (msg.watch && !open.has(msg.watch)) open.set(msg.watch, new Database(msg.watch));
  if (msg.unwatch) {
    if (open.has(msg.unwatch)) open.get(msg.unwatch).close();
    open.delete(msg.unwatch);
  }
});
setInterval(() => {
  for (const [file, db] of open) {
    try {
      if (fs.statSync(file + "-wal").size > workerData.bytes) db.pragma("wal_checkpoint(PASSIVE)");
    } catch {
      // No WAL yet, or a store closing: nothing to copy now.
    }
  }
}, workerData.intervalMs);
`;

let worker: Worker | null = null;
let users = 0;

/** Starts checkpointing this file (the worker starts with the first one). */
export function watch(file: string): void {
  if (!worker) {
    worker = new Worker(THREAD, {
      eval: true,
      workerData: { intervalMs: INTERVAL_MS, bytes: CHECKPOINT_BYTES, sqlite: require.resolve("better-sqlite3") },
      // A stat and a pragma per file: a small heap of its own, not the young generation the process's flags size for requests.
      resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 32 },
    });
    // The worker must not keep a stopping process alive.
    worker.unref();
  }
  users++;
  worker.postMessage({ watch: file });
}

/** Stops checkpointing this file (the caller checkpoints as it closes); the worker ends with the last one. */
export async function unwatch(file: string): Promise<void> {
  if (!worker) return;
  worker.postMessage({ unwatch: file });
  if (--users > 0) return;
  const w = worker;
  worker = null;
  await w.terminate();
}
