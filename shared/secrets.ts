/**
 * Secrets at rest (house rule 10, docs/architecture.md): API keys as SHA-256 hashes, passwords as Argon2id, secrets the
 * server must send again (sync and notification credentials) sealed with AES-256-GCM.
 */
import crypto from "crypto";
import fs from "fs";
import type { IncomingHttpHeaders } from "http";
import path from "path";
import argon2 from "argon2";
import { config } from "./config";
import { BadRequestError } from "./errors";

/** A new API key: 32 random bytes, URL-safe. Shown once, stored only as its hash. */
export function generateApiKey(): string {
  return crypto.randomBytes(32).toString("base64url");
}

/** SHA-256 as hex: how keys, tokens and codes are stored, and how feed contents are compared. */
export function sha256Hex(data: string | Buffer): string {
  // One-shot: a third of createHash's cost on a key, and the gateway hashes one per request.
  return crypto.hash("sha256", data, "hex");
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/** A request's API key: the Api-Key header, else X-Api-Key (PinePods' web client sends that name on its task list). */
export function requestApiKey(headers: IncomingHttpHeaders): string | undefined {
  const value = headers["api-key"] ?? headers["x-api-key"];
  return Array.isArray(value) ? value[0] : value;
}

const ARGON2_ENCODED = /^\$argon2(id|i|d)\$v=\d+\$[mtp]=\d+(,[mtp]=\d+){2}\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;
const MIN_PASSWORD_LENGTH = 8;

/**
 * Clients of this API family send an Argon2 hash they computed themselves; curl users send the clear
 * password. An encoded Argon2 string is stored as is; anything else is hashed here (docs/spec/ROUTES.md).
 */
export async function passwordToStoredHash(value: string): Promise<string> {
  if (ARGON2_ENCODED.test(value)) return value;
  if (value.length < MIN_PASSWORD_LENGTH) throw new BadRequestError(`Password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  return argon2.hash(value, { type: argon2.argon2id });
}

// Verified against when the username is unknown, so that timing does not reveal which accounts exist.
let dummyHash: Promise<string> | null = null;

export async function verifyPassword(storedHash: string | null | undefined, password: string): Promise<boolean> {
  if (!storedHash) {
    dummyHash ??= argon2.hash("not-a-real-password", { type: argon2.argon2id });
    await argon2.verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await argon2.verify(storedHash, password);
  } catch {
    return false; // a malformed stored hash never logs anyone in
  }
}

/**
 * Reversible secrets (passwords and tokens of sync servers and notification endpoints, which the
 * server must send again): AES-256-GCM under SECRET_KEY, or a key generated into DATA_DIR on first use.
 * Stored as "v1:<iv>:<tag>:<ciphertext>" in base64url.
 */
let secretKeyCache: { source: string; key: Buffer } | null = null;

function secretKey(): Buffer {
  const source = config.secretKey || path.join(config.dataDir, "secret.key");
  if (secretKeyCache?.source === source) return secretKeyCache.key;
  let material = config.secretKey;
  if (!material) {
    try {
      material = fs.readFileSync(source, "utf8").trim();
    } catch {
      fs.mkdirSync(config.dataDir, { recursive: true });
      material = crypto.randomBytes(32).toString("base64url");
      // wx: two processes starting at once keep the first key written
      try {
        fs.writeFileSync(source, material, { flag: "wx", mode: 0o600 });
      } catch {
        material = fs.readFileSync(source, "utf8").trim();
      }
    }
  }
  const key = crypto.createHash("sha256").update(material).digest();
  secretKeyCache = { source, key };
  return key;
}

export function encryptSecret(plain: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", secretKey(), iv);
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), data].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(":");
}

/** The clear text, or null when the value was sealed under another key (SECRET_KEY changed) or is damaged. */
export function decryptSecret(sealed: string | null | undefined): string | null {
  const parts = sealed?.split(":");
  if (!parts || parts.length !== 4 || parts[0] !== "v1") return null;
  try {
    const [iv, tag, data] = parts.slice(1).map((p) => Buffer.from(p, "base64url"));
    const decipher = crypto.createDecipheriv("aes-256-gcm", secretKey(), iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(data), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
