/**
 * The server backup file (docs/operating.md "Server backups"): JSON lines, one object a line, UTF-8, optionally gzip.
 *
 *   {"format":"podcast-server-backup","version":1,"created_at":"2026-...Z","server_version":"0.1.0"}
 *   {"service":"users","collection":"users","doc":{"_id":1,...}}
 *   ...                                   one line per stored record, counters included
 *   {"end":true,"records":1234}
 *
 * Dates inside documents are written {"$date":"<ISO 8601>"} so that they come back as dates (field
 * names never start with "$" in MongoDB or NeDB, so the form cannot clash with data). The end line
 * tells a complete file from a cut one: a restore refuses a file without it.
 */
import fs from "fs";
import readline from "readline";
import zlib from "zlib";
import type { Readable } from "stream";

export const BACKUP_FORMAT = "podcast-server-backup";
export const BACKUP_VERSION = 1;
/** Name of the counters collection in every service's export (its per-service NeDB file, or the shared MongoDB collection). */
export const COUNTERS_COLLECTION = "counters";

export interface BackupHeader {
  format: string;
  version: number;
  created_at: string;
  server_version: string;
}

export interface BackupRecord {
  service: string;
  collection: string;
  doc: Record<string, unknown>;
}

export interface BackupEnd {
  end: true;
  records: number;
}

/** One record line (with its newline): dates tagged so that decodeLine revives them. */
export function encodeRecord(service: string, collection: string, doc: object): string {
  return (
    JSON.stringify({ service, collection, doc }, function (this: Record<string, unknown>, key: string, value: unknown) {
      const raw = this[key];
      return raw instanceof Date ? { $date: raw.toISOString() } : value;
    }) + "\n"
  );
}

/** Parses one line of a backup file, reviving tagged dates. */
/** A record line as written by encodeRecord; anything else parses to other shapes, which the reader checks. */
export interface RecordLine {
  service?: string;
  collection?: string;
  doc?: { _id?: unknown; [field: string]: unknown };
}

export function decodeLine(line: string): RecordLine | null {
  return JSON.parse(line, (_key, value: unknown) => {
    const tagged = value as { $date?: unknown } | null;
    if (tagged && typeof tagged === "object" && !Array.isArray(tagged) && typeof tagged.$date === "string" && Object.keys(tagged).length === 1)
      return new Date(tagged.$date);
    return value;
  }) as RecordLine | null;
}

export function headerLine(serverVersion: string, createdAt = new Date()): string {
  const header: BackupHeader = { format: BACKUP_FORMAT, version: BACKUP_VERSION, created_at: createdAt.toISOString(), server_version: serverVersion };
  return JSON.stringify(header) + "\n";
}

export function endLine(records: number): string {
  return JSON.stringify({ end: true, records } satisfies BackupEnd) + "\n";
}

/** Throws unless the first line names this format and a version this server reads. */
export function checkHeader(line: string | undefined): BackupHeader {
  let header: Partial<BackupHeader> | null;
  try {
    header = line ? (JSON.parse(line) as Partial<BackupHeader>) : null;
  } catch {
    header = null;
  }
  if (!header || header.format !== BACKUP_FORMAT) throw new Error(`Not a ${BACKUP_FORMAT} file`);
  if (header.version !== BACKUP_VERSION)
    throw new Error(`Backup format version ${header.version} is not supported (this server reads version ${BACKUP_VERSION})`);
  return header as BackupHeader; // its format and version checked above, the rest as written by headerLine
}

/** A backup file's decompressed bytes: gzip (told by its first two bytes, 1f 8b) or plain. */
export function openBackupFile(file: string): Readable {
  const head = Buffer.alloc(2);
  const fd = fs.openSync(file, "r");
  try {
    fs.readSync(fd, head, 0, 2, 0);
  } finally {
    fs.closeSync(fd);
  }
  const raw = fs.createReadStream(file);
  if (head[0] !== 0x1f || head[1] !== 0x8b) return raw;
  const gunzip = zlib.createGunzip();
  raw.on("error", (err) => gunzip.destroy(err));
  return raw.pipe(gunzip);
}

/** The non-empty lines of a decompressed backup stream. */
export async function* backupLines(input: Readable): AsyncGenerator<string> {
  for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
    if (line) yield line;
  }
}
