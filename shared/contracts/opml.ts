/** Shapes of the OPML import job: its payload, and the chunks the workers service hands to opml.import_chunk. */
import { action } from "./call";
import { Nullable, PlainText, Type, type Static } from "./answers";
import type { AuthUser } from "../types";

/** A feed to import, as the OPML (or the list of URLs) named it. */
export interface ImportFeed {
  url: string;
  title: string | null;
}

export interface ImportFailure {
  url: string;
  reason: string;
}

/** Payload of a JOB_IMPORT_OPML task. `caller` is who asked: feeds are added with their rights. */
export interface ImportOpmlPayload {
  feeds: ImportFeed[];
  /** Entries refused before the job started (not http(s) URLs): reported with the result. */
  rejected: ImportFailure[];
  caller: AuthUser;
}

/** opml.import_chunk params: feeds[offset ..] of an import of `total` feeds. */
export interface ImportChunkParams {
  user_id: number;
  task_id: string;
  feeds: ImportFeed[];
  offset: number;
  total: number;
}

export interface ImportChunkResult {
  imported: number;
  skipped: number;
  failed: ImportFailure[];
}

// --- Answers of the opml service's routes ---
const ImportFailure = Type.Object({ url: Type.String(), reason: Type.String() });
export const ImportOpmlAnswer = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  task_id: Type.String(),
  total: Type.Integer(),
  rejected: Type.Array(ImportFailure),
});
export type ImportOpmlAnswer = Static<typeof ImportOpmlAnswer>;
/** import_progress: current, total and current_podcast ("" when none) are what the web client reads. */
export const ImportProgressAnswer = Type.Object({
  current: Type.Integer(),
  total: Type.Integer(),
  current_podcast: Type.String(),
  status: Type.String(),
  task_id: Nullable(Type.String()),
  imported: Type.Integer(),
  skipped: Type.Integer(),
  failed: Type.Array(ImportFailure),
});
export type ImportProgressAnswer = Static<typeof ImportProgressAnswer>;
export const OpmlText = PlainText("The user's subscriptions as an OPML 2.0 document");

// --- Calls to the opml service and its events (shared/contracts/call.ts) ---

/** Subscribes feeds[offset ..] of an import job (the workers service, with the caller in meta.user). */
export const importChunk = action<ImportChunkParams, ImportChunkResult>("opml.import_chunk");
