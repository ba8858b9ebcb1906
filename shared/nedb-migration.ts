/**
 * The upgrade path from the NeDB store: at the first start on a data folder written by a server of before
 * the SQLite store, each collection's NeDB file (`<name>.db`) is read with NeDB itself (its own loader, so
 * every line means what it meant: later versions of a document, deletions, dates) and its documents are
 * written into `<name>.sqlite`, then the NeDB file is renamed `<name>.db.moved` (kept, never read again).
 *
 * Crash safety: the documents go into `<name>.sqlite.moving`, which becomes `<name>.sqlite` by a rename
 * only once complete and closed; a start that finds a `.moving` file (a move cut short) starts the move
 * again from the NeDB file, which is renamed last.
 */
import fs from "fs";
import path from "path";
import "./nedb-compaction";
import type { StoredDoc } from "./service-types";

/** The part of NeDB's Datastore the move uses. */
interface NedbDatastore {
  loadDatabaseAsync(): Promise<void>;
  getAllData(): StoredDoc[];
}

// require(): the NeDB that moleculer-db loads (whose Persistence nedb-compaction patches), found through moleculer-db; no import path reaches it.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- resolved at run time from moleculer-db's folder
const Datastore = require(require.resolve("@seald-io/nedb", { paths: [path.dirname(require.resolve("moleculer-db"))] })) as new (options: {
  filename: string;
  autoload: boolean;
}) => NedbDatastore;

/** Documents per insert transaction of the move. */
const BATCH = 5_000;

/** The NeDB file that a store file replaces (`x.sqlite` -> `x.db`). */
export function legacyFileOf(file: string): string {
  return file.replace(/\.sqlite$/, ".db");
}

/**
 * Moves the NeDB file of `file`'s collection into it when `file` does not exist yet and the NeDB file does.
 * `open(target)` opens an empty store at `target` and gives back its batch insert and its close.
 * Returns how many documents moved (null: nothing to move).
 */
export async function moveNedbFile(
  file: string,
  open: (target: string) => Promise<{ putAll(docs: StoredDoc[]): void; close(): Promise<void> }>,
): Promise<number | null> {
  const legacy = legacyFileOf(file);
  if (fs.existsSync(file) || !fs.existsSync(legacy)) return null;
  const moving = `${file}.moving`;
  for (const f of [moving, `${moving}-wal`, `${moving}-shm`]) fs.rmSync(f, { force: true });
  const nedb = new Datastore({ filename: legacy, autoload: false });
  await nedb.loadDatabaseAsync();
  const docs = nedb.getAllData();
  const target = await open(moving);
  try {
    for (let i = 0; i < docs.length; i += BATCH) target.putAll(docs.slice(i, i + BATCH));
  } finally {
    await target.close();
  }
  fs.renameSync(moving, file);
  fs.renameSync(legacy, `${legacy}.moved`);
  return docs.length;
}
