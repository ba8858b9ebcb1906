/**
 * Secrets at rest (DESIGN.md rule 10): API keys as SHA-256 hashes, passwords as Argon2id.
 */
import crypto from "crypto";
import argon2 from "argon2";
import { BadRequestError } from "./errors";

/** A new API key: 32 random bytes, URL-safe. Shown once, stored only as its hash. */
export function generateApiKey(): string {
  return crypto.randomBytes(32).toString("base64url");
}

/** SHA-256 as hex: how keys, tokens and codes are stored, and how feed contents are compared. */
export function sha256Hex(data: string | Buffer): string {
  return crypto.createHash("sha256").update(data).digest("hex");
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

const ARGON2_ENCODED = /^\$argon2(id|i|d)\$v=\d+\$[mtp]=\d+(,[mtp]=\d+){2}\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;
const MIN_PASSWORD_LENGTH = 8;

/**
 * Clients of this API family send an Argon2 hash they computed themselves; curl users send the clear
 * password. An encoded Argon2 string is stored as is; anything else is hashed here (ROUTES.md).
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
