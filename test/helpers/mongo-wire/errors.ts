/** MongoDB's command errors, and the shapes they take in an answer and in a write's writeErrors. */
import type { Doc } from "./types";

export class CommandError extends Error {
  constructor(
    readonly code: number,
    readonly codeName: string,
    message: string,
    readonly extra: Doc = {},
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new CommandError(26, "NamespaceNotFound", what);
export const badValue = (msg: string) => new CommandError(2, "BadValue", msg);

/** A failed command's answer; anything that is not a CommandError answers as BadValue. */
export function errorAnswer(err: unknown): Doc {
  if (err instanceof CommandError) return { ok: 0, errmsg: err.message, code: err.code, codeName: err.codeName, ...err.extra };
  return { ok: 0, errmsg: err instanceof Error ? err.message : String(err), code: 2, codeName: "BadValue" };
}

/** One entry of a write command's writeErrors, for the statement at `index`. */
export function writeError(index: number, err: unknown): Doc {
  if (err instanceof CommandError) return { index, code: err.code, codeName: err.codeName, errmsg: err.message, ...err.extra };
  return { index, code: 2, codeName: "BadValue", errmsg: err instanceof Error ? err.message : String(err) };
}
