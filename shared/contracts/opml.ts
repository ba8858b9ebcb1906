/** Shapes of the OPML import job: its payload, and the chunks the workers service hands to opml.import_chunk. */
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
