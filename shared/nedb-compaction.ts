/**
 * NeDB rewrites a collection's whole file on every load (and compaction). Its own rewrite serialises
 * every document into one array of lines, then writes each line plus "\n" into a file stream without
 * waiting for it to drain: for the 126 MB episodes.db of the listening benchmark that is the file three
 * times over in memory at once (the lines, their copies with a newline, the stream's queued buffers),
 * the peak of the whole start-up. This rewrite makes the same file through the same crash-safe steps
 * (flush, temp file, flush, rename, flush of the directory) a chunk at a time, waiting for each write.
 *
 * It replaces the method on the Persistence class of the NeDB that moleculer-db loads (resolved from
 * moleculer-db, so it is the very same module); the rewrite runs inside NeDB's executor, as before, so
 * no write interleaves with it.
 */
import fs from "fs";
import path from "path";

/** NeDB's own event (its Datastore is an EventEmitter), not a broker event. */
const COMPACTION_DONE = "compaction.done";

/** Characters of serialised lines per write. */
const CHUNK = 1 << 20;

const fromDb = { paths: [path.dirname(require.resolve("moleculer-db"))] };

/** What this file uses of NeDB's (untyped) storage module. */
interface NedbStorage {
  flushToStorageAsync(options: { filename: string; isDir?: boolean; mode: number }): Promise<void>;
  existsAsync(file: string): Promise<boolean>;
  renameAsync(from: string, to: string): Promise<void>;
}

// require(): NeDB's internals, resolved from moleculer-db (the very module it loads, whose class is patched below).
/* eslint-disable @typescript-eslint/no-require-imports -- NeDB's internals ship no types, and are found through moleculer-db */
const Persistence = require(require.resolve("@seald-io/nedb/lib/persistence", fromDb)) as { prototype: { persistCachedDatabaseAsync: unknown } };
const storage = require(require.resolve("@seald-io/nedb/lib/storage", fromDb)) as NedbStorage;
const model = require(require.resolve("@seald-io/nedb/lib/model", fromDb)) as { serialize(doc: object): string };
/* eslint-enable @typescript-eslint/no-require-imports */

/** The part of NeDB's (untyped) Persistence this replacement reads. */
interface NedbPersistence {
  inMemoryOnly: boolean;
  filename: string;
  modes: { dirMode: number; fileMode: number };
  db: { getAllData(): object[]; indexes: Record<string, { unique: boolean; sparse: boolean }>; emit(event: string): void };
  afterSerialization(line: string): string;
}

async function persistCachedDatabaseAsync(this: NedbPersistence): Promise<void> {
  if (this.inMemoryOnly) return;
  const { filename, modes } = this;
  const temp = `${filename}~`;
  // The documents as they are now (NeDB's executor holds every write until this returns).
  const docs: object[] = this.db.getAllData();
  const indexLines = Object.keys(this.db.indexes)
    .filter((fieldName) => fieldName !== "_id") // _id is NeDB's own; the others are persisted
    .map((fieldName) => {
      const { unique, sparse } = this.db.indexes[fieldName];
      return { $$indexCreated: { fieldName, unique, sparse } };
    });

  await storage.flushToStorageAsync({ filename: path.dirname(filename), isDir: true, mode: modes.dirMode });
  if (await storage.existsAsync(filename)) await storage.flushToStorageAsync({ filename, mode: modes.fileMode });
  const file = await fs.promises.open(temp, "w", modes.fileMode);
  try {
    const line = (doc: object) => `${this.afterSerialization(model.serialize(doc))}\n`;
    let chunk = "";
    for (const doc of docs) {
      chunk += line(doc);
      if (chunk.length < CHUNK) continue;
      // writeFile on an open handle writes from its current position: the chunks follow one another.
      await file.writeFile(chunk);
      chunk = "";
    }
    await file.writeFile(chunk + indexLines.map(line).join(""));
  } finally {
    await file.close();
  }
  await storage.flushToStorageAsync({ filename: temp, mode: modes.fileMode });
  await storage.renameAsync(temp, filename);
  await storage.flushToStorageAsync({ filename: path.dirname(filename), isDir: true, mode: modes.dirMode });
  this.db.emit(COMPACTION_DONE);
}

Persistence.prototype.persistCachedDatabaseAsync = persistCachedDatabaseAsync;
