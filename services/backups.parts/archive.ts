/**
 * Writing and reading server backup files (format: shared/backup-format.ts). Every service exports and
 * imports its own collections through the db mixin's backup_* actions (house rule 1, docs/architecture.md); this module
 * only strings their streams together and hands records back to their owners.
 */
import crypto from "crypto";
import fs from "fs";
import path from "path";
import zlib from "zlib";
import { Readable } from "stream";
import { pipeline } from "stream/promises";
import type { ServiceBroker } from "moleculer";
import { backupLines, checkHeader, endLine, headerLine, openBackupFile } from "../../shared/backup-format";
import { config } from "../../shared/config";
import { BadRequestError, ConflictError, NotFoundError } from "../../shared/errors";
import { backupClear, backupCounts, backupExport, backupImport, backupRestored } from "../../shared/contracts/backups";
import type { RestoreResult } from "../../shared/contracts/backups";

export type { RestoreResult };

/** Records per backup_import call, and their bytes: a batch stays well under a NATS message. */
const IMPORT_BATCH_LINES = 500;
const IMPORT_BATCH_BYTES = 256 * 1024;
/** Backup files the routes see in BACKUP_DIR. */
const BACKUP_FILE = /\.jsonl(\.gz)?$/;
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
export const SCHEDULED_PREFIX = "scheduled_backup_";
/** Suffix of a backup being written (never listed: it does not end in .jsonl or .jsonl.gz). */
const PARTIAL = ".partial";

/** Services with a store (they answer backup_export), sorted: the order of a backup file. */
export function storeServices(broker: ServiceBroker): string[] {
  const names = broker.registry
    .getActionList({ onlyAvailable: true, skipInternal: true, withEndpoints: false })
    .filter((a) => a.name.endsWith(".backup_export"))
    .map((a) => a.name.slice(0, -".backup_export".length));
  return Array.from(new Set<string>(names)).sort();
}

function countLines(chunk: Buffer): number {
  let n = 0;
  for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) n++;
  return n;
}

/** The whole backup as bytes: header, each service's export in turn (never all in memory), end line. */
async function* backupChunks(broker: ServiceBroker, services: string[]): AsyncGenerator<Buffer> {
  yield Buffer.from(headerLine(config.version));
  let records = 0;
  for (const service of services) {
    const part: Readable = await backupExport(broker, service);
    // An export is a byte stream (not object mode): its chunks are Buffers.
    for await (const chunk of part as AsyncIterable<Buffer>) {
      records += countLines(chunk);
      yield chunk;
    }
  }
  yield Buffer.from(endLine(records));
}

/** A backup stream of every service with a store, gzip-compressed when asked. */
export function backupStream(broker: ServiceBroker, gzip: boolean): Readable {
  const plain = Readable.from(backupChunks(broker, storeServices(broker)), { objectMode: false });
  if (!gzip) return plain;
  const zipped = zlib.createGzip();
  plain.on("error", (err) => zipped.destroy(err));
  return plain.pipe(zipped);
}

/** `scheduled_backup_20261125_143000123.jsonl.gz` style stamp of a moment. */
export function fileStamp(at: Date): string {
  return at.toISOString().replace(/[-:]/g, "").replace("T", "_").replace(".", "").replace("Z", "");
}

/** Writes a gzip backup into BACKUP_DIR under this name (complete or not at all: written aside, then renamed). */
export async function writeBackupFile(broker: ServiceBroker, name: string): Promise<{ filename: string; size: number }> {
  fs.mkdirSync(config.backupDir, { recursive: true });
  const target = path.join(config.backupDir, name);
  const temp = `${target}${PARTIAL}`;
  try {
    await pipeline(backupStream(broker, true), fs.createWriteStream(temp));
    fs.renameSync(temp, target);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
  return { filename: name, size: fs.statSync(target).size };
}

/** A file name inside BACKUP_DIR: a bare name only (no "/", "..", absolute paths), else 400. */
export function backupPath(name: string): string {
  if (!SAFE_NAME.test(name) || name.includes("..")) throw new BadRequestError("backup_filename must be a file name inside the backup folder");
  const file = path.join(config.backupDir, name);
  if (path.dirname(file) !== config.backupDir) throw new BadRequestError("backup_filename must be a file name inside the backup folder");
  return file;
}

/**
 * An uploaded backup, kept in BACKUP_DIR for the time of its restore under a name that the file routes
 * never see (a leading dot, no .jsonl ending). Returns its path; the caller removes it.
 */
export async function saveUpload(upload: Readable): Promise<string> {
  fs.mkdirSync(config.backupDir, { recursive: true });
  const file = path.join(config.backupDir, `.upload-${crypto.randomUUID()}.tmp`);
  try {
    await pipeline(upload, fs.createWriteStream(file));
  } catch (err) {
    fs.rmSync(file, { force: true });
    throw err;
  }
  return file;
}

/** The named backup file, which must exist (404 otherwise). */
export function existingBackup(name: string): string {
  const file = backupPath(name);
  if (!BACKUP_FILE.test(name) || !fs.statSync(file, { throwIfNoEntry: false })?.isFile()) throw new NotFoundError(`Backup file ${name} not found`);
  return file;
}

export interface BackupFileInfo {
  filename: string;
  size: number;
  /** Seconds since the epoch (as clients of this API family read it). */
  modified: number;
  modified_at: string;
}

/** Backup files in BACKUP_DIR, newest first. */
export function listBackupFiles(): BackupFileInfo[] {
  if (!fs.existsSync(config.backupDir)) return [];
  const files: BackupFileInfo[] = [];
  for (const entry of fs.readdirSync(config.backupDir, { withFileTypes: true })) {
    if (!entry.isFile() || !BACKUP_FILE.test(entry.name)) continue;
    const stat = fs.statSync(path.join(config.backupDir, entry.name));
    files.push({ filename: entry.name, size: stat.size, modified: Math.floor(stat.mtimeMs / 1000), modified_at: stat.mtime.toISOString() });
  }
  return files.sort((a, b) => b.modified_at.localeCompare(a.modified_at) || b.filename.localeCompare(a.filename));
}

/** Scheduled backups beyond the newest `keep` are deleted. */
export function pruneScheduled(keep: number): string[] {
  if (keep <= 0) return [];
  const old = listBackupFiles()
    .filter((f) => f.filename.startsWith(SCHEDULED_PREFIX))
    .sort((a, b) => b.filename.localeCompare(a.filename))
    .slice(keep);
  for (const f of old) fs.rmSync(path.join(config.backupDir, f.filename), { force: true });
  return old.map((f) => f.filename);
}

/**
 * Partial files that no writer touched for `idleMs` (a process killed mid-backup left them) are
 * deleted; a backup still being written keeps changing its file.
 */
export function removeStalePartials(idleMs: number): string[] {
  if (!fs.existsSync(config.backupDir)) return [];
  const stale: string[] = [];
  for (const entry of fs.readdirSync(config.backupDir, { withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(PARTIAL)) continue;
    const file = path.join(config.backupDir, entry.name);
    if (Date.now() - fs.statSync(file).mtimeMs < idleMs) continue;
    fs.rmSync(file, { force: true });
    stale.push(entry.name);
  }
  return stale;
}

/** A line of a backup after its header, as JSON.parse reads it: a record, or the end line; checked field by field. */
type BackupLine = { end?: unknown; records?: unknown; service?: unknown; collection?: unknown; doc?: unknown } | null;

/** Reads the whole file once without writing: its header, its end line and the services its records belong to. */
async function checkFile(file: string): Promise<Map<string, number>> {
  const perService = new Map<string, number>();
  let header = false;
  let end: BackupLine = null;
  let records = 0;
  for await (const line of backupLines(openBackupFile(file))) {
    if (!header) {
      checkHeader(line);
      header = true;
      continue;
    }
    if (end) throw new BadRequestError("The backup has data after its end line");
    let rec: BackupLine;
    try {
      rec = JSON.parse(line) as BackupLine; // each of its fields is checked below
    } catch {
      throw new BadRequestError(`Line ${records + 2} of the backup is not JSON`);
    }
    if (rec?.end === true) {
      end = rec;
      continue;
    }
    if (typeof rec?.service !== "string" || typeof rec.collection !== "string" || !rec.doc || typeof rec.doc !== "object") {
      throw new BadRequestError(`Line ${records + 2} of the backup is not a record`);
    }
    perService.set(rec.service, (perService.get(rec.service) ?? 0) + 1);
    records++;
  }
  if (!header) throw new BadRequestError("The backup file is empty");
  if (!end || end.records !== records) throw new BadRequestError("The backup file is incomplete (no end line, or a record count that does not match)");
  return perService;
}

/**
 * Restores a backup file: checks all of it first, then clears every service's collections and gives each
 * its records back with their ids. `empty`: refuses a server that already has accounts (409); otherwise
 * the backup replaces whatever is there.
 */
export async function restoreBackup(broker: ServiceBroker, file: string, mode: "empty" | "replace"): Promise<RestoreResult> {
  let perService: Map<string, number>;
  try {
    perService = await checkFile(file);
  } catch (err) {
    if (err instanceof BadRequestError) throw err;
    throw new BadRequestError(`Not a readable backup: ${(err as Error | null)?.message}`);
  }
  const running = storeServices(broker);
  const missing = [...perService.keys()].filter((s) => !running.includes(s));
  if (missing.length) throw new BadRequestError(`The backup holds data of services that are not running: ${missing.join(", ")}`);
  if (mode === "empty") {
    const users: Record<string, number> = await backupCounts(broker, "users");
    if (users.users > 0) throw new ConflictError("The server already has accounts: a backup is restored into an empty server only");
  }
  // Records services wrote at their first start (default settings, leases) give way to the backup's.
  for (const service of running) await backupClear(broker, service);
  const batches = new Map<string, { lines: string[]; bytes: number }>();
  const flush = async (service: string) => {
    const batch = batches.get(service);
    if (!batch?.lines.length) return;
    batches.delete(service);
    await backupImport(broker, service, { lines: batch.lines });
  };
  let first = true;
  for await (const line of backupLines(openBackupFile(file))) {
    if (first) {
      first = false;
      continue;
    }
    const { service } = JSON.parse(line) as { service?: string }; // checked by checkFile
    if (!service) continue; // the end line
    const batch = batches.get(service) ?? { lines: [], bytes: 0 };
    batches.set(service, batch);
    batch.lines.push(line);
    batch.bytes += line.length;
    if (batch.lines.length >= IMPORT_BATCH_LINES || batch.bytes >= IMPORT_BATCH_BYTES) await flush(service);
  }
  for (const service of [...batches.keys()]) await flush(service);
  await backupRestored.broadcast(broker, {});
  const records = [...perService.values()].reduce((a, b) => a + b, 0);
  return { records, services: Object.fromEntries(perService) };
}
