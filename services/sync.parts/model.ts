/** The sync service's record of one user's sync account, and the errors a sync server's failures become. */
import { BadRequestError, NotFoundError, ServiceUnavailableError, UnauthorizedError } from "../../shared/errors";
import { OutboundHttpError, Rights } from "../../shared/http";
import type { SyncSummary } from "../../shared/contracts/sync";

export type SyncType = "gpodder" | "nextcloud";

/** One per user (_id = user_id). The password is sealed (shared/secrets.ts) and never leaves the service. */
export interface SyncSettingsDoc {
  _id: number;
  user_id: number;
  sync_type: SyncType;
  server_url: string;
  username: string;
  password_sealed: string;
  enabled: boolean;
  /** This server's device id on the gPodder server (the default device). */
  device_id: string;
  rights: Rights;
  /** Server timestamps of the last subscription and episode-action downloads (the API's `since`). */
  subs_since: number;
  actions_since: number;
  /** Local positions set after this were not uploaded yet. */
  last_upload: Date | null;
  /** The feeds both sides had after the last sync: tells a change on one side from one on the other. */
  remote_feeds: string[];
  last_sync: Date | null;
  last_status: "never" | "success" | "failed";
  last_error: string | null;
  /** The HTTP status the last failure answered, so that a request waiting for its sync task answers the same. */
  last_error_code?: number | null;
  /** When the scheduler last queued a sync of this user. */
  scheduled_at?: Date;
  last_result: SyncSummary | null;
  /** Who syncs this user now (one replica at a time), and until when. */
  lease_owner: string | null;
  lease_until: Date;
}

/** What one sync changed (shared/contracts/sync.ts: it is also the last_result clients read). */
export type { SyncSummary };

export const DEVICE_ID = /^[\w.-]{1,64}$/;

/** A failure talking to a sync server as a client should read it (never with credentials or a stack). */
export function syncError(err: unknown): Error {
  // Not the sync server's: passed on as thrown.
  if (!(err instanceof OutboundHttpError)) return err as Error;
  if (err.kind === "http_status" && err.status === 401) return new UnauthorizedError("The sync server rejected the username or password");
  if (err.kind === "blocked_address" || err.kind === "invalid_url") return new BadRequestError(err.message);
  if (err.kind === "http_status") return new ServiceUnavailableError(`The sync server answered HTTP ${err.status}`);
  return new ServiceUnavailableError(`The sync server could not be reached: ${err.message}`);
}

/** A failed sync task as the request that waited for it answers (the status the sync failed with). */
export function failureOf(code: number | null | undefined, message: string): Error {
  if (code === 400) return new BadRequestError(message);
  if (code === 401) return new UnauthorizedError(message);
  if (code === 404) return new NotFoundError(message);
  return new ServiceUnavailableError(message);
}
