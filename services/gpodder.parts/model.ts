/**
 * The gpodder service's records, and how what devices send is checked and put into them: feed URLs
 * sanitized as the gPodder API describes, episode actions validated and normalised (action in lower case,
 * timestamp in UTC without a zone), and the per-user clock that orders everything the server receives.
 */
import { BadRequestError } from "../../shared/errors";
import { DEVICE_TYPES, type DeviceType, type GpodderEpisodeAction, type LibraryState, type NextcloudEpisodeAction } from "../../shared/contracts/gpodder";
import type { SyncPodcast } from "../../shared/contracts/podcasts";

/**
 * One per user: the clock (the `since` / `timestamp` values: every record up to it is stored), the last
 * clock value handed to a write (ahead of the clock while writes run), the write lease, how far episode
 * actions are applied to the library, and the rights to apply them with.
 */
export interface UserDoc {
  _id: number;
  clock: number;
  issued: number;
  applied_seq: number;
  is_admin: boolean;
  /** The device PinePods' web client shows as the default (services/gpodder.parts/web.actions.ts); absent: the oldest. */
  default_device?: string | null;
  /** The write holding the user's write lease (gpodder.service.ts), and until when; absent on records from before it. */
  write_holder?: string | null;
  write_until?: Date;
  /** Set while the user's first call seeds the library (other processes' calls wait); null or absent once done. */
  seed_until?: Date | null;
  /**
   * Feeds of the user wait to be applied to the library (pending, or failed and retried): when the next of them
   * is due (ms), and the write that last said so (a clock value; 0 for a retry asked or a store migrated). Null or
   * absent: none wait. The retry round
   * reads this instead of an index over every feed's state, which cost each upload's inserts a third of their time.
   */
  feeds_due_at?: number | null;
  feeds_mark?: number | null;
}

export interface DeviceDoc {
  _id: string;
  user_id: number;
  device_id: string;
  caption: string;
  type: DeviceType;
  /** Sync group: devices with the same group id are synchronized (sync-devices). */
  group: string | null;
  created_at: Date;
}

/**
 * A feed of a user as the devices know it (_id: feedKey): its last change (add or remove) with the clock value it was
 * received at. Only what a change says is written (a first sync writes a thousand): the fields of a failed try come
 * with the failure. Records of earlier versions also hold user_id and rkey, which nothing reads.
 */
export interface FeedDoc {
  _id: string;
  url: string;
  subscribed: boolean;
  seq: number;
  /** The device the change came from (SERVER_DEVICE for changes of the library here). */
  device: string;
  library: LibraryState;
  /** The feed moved to this URL (a podcast here moved: podcasts.feed_moved); a device sending this one gets that one. */
  moved_to?: string | null;
  /** Failed tries so far (absent: none). */
  attempts?: number;
  last_error?: string | null;
  next_try?: Date | null;
}

export interface ActionDoc {
  _id: number;
  user_id: number;
  seq: number;
  rkey: string;
  podcast: string;
  episode: string;
  guid: string | null;
  /** null: the device did not say (the gPodder API makes it optional). */
  device: string | null;
  /** Made here (a position recorded in this server's library), not sent by a device: never applied back. */
  here?: true;
  action: string;
  timestamp: string;
  started: number | null;
  position: number | null;
  total: number | null;
}

export const ACTIONS = ["download", "play", "delete", "new", "flattr"];
export const deviceTypes: readonly string[] = DEVICE_TYPES;
/** Most URLs or actions one request may carry. */
export const MAX_ITEMS = 100_000;
export const MAX_URL = 4000;

/** The sortable key of (user, clock value): user_id and seq zero-padded. */
export function rkey(user_id: number, seq: number): string {
  return `${String(user_id).padStart(10, "0")}:${String(seq).padStart(12, "0")}`;
}

/** The rkey range of a user's records received after `since` up to `until` (both clock values). */
export function rkeyRange(user_id: number, since: number, until: number) {
  return { rkey: { $gt: rkey(user_id, since), $lte: rkey(user_id, until) } };
}

export const deviceKey = (user_id: number, device_id: string) => `${user_id}:${device_id}`;
export const feedKey = (user_id: number, url: string) => `${user_id}:${url}`;
/** The user of a feed's record, from its _id (feedKey). */
export const feedUser = (_id: string) => Number(_id.slice(0, _id.indexOf(":")));
/** A user's feeds: their _id begins with "<user_id>:" (";" follows ":"), a range of the primary key, with no index of its own to write. */
export const feedsOf = (user_id: number) => ({ _id: { $gte: `${user_id}:`, $lt: `${user_id};` } });
/** A user's feeds changed after `since` up to `until` (clock values): read through the user's feeds, which no other index orders. */
export const feedsChanged = (user_id: number, since: number, until: number) => ({ ...feedsOf(user_id), seq: { $gt: since, $lte: until } });

/** A device id as the gPodder API allows it: letters, digits, dot, dash and underscore. */
export const DEVICE_ID = /^[\w.-]{1,64}$/;

export function checkDeviceId(device_id: string): string {
  if (!DEVICE_ID.test(device_id)) throw new BadRequestError("Invalid device id (letters, digits, '.', '-' and '_', at most 64)");
  return device_id;
}

/** `since` as sent (absent: 0); anything but a whole number is a 400. */
export function sinceOf(value: unknown): number {
  if (value === undefined || value === null || value === "") return 0;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new BadRequestError("since must be a whole number of seconds");
  return n;
}

// Schemes podcast apps use for links to feeds ("feed://host/x", "feed:https://host/x", "itpc://host/x").
const FEED_SCHEMES = /^(?:feed|itpc|pcast|podcast|itms|itms-pcast):(?:\/\/)?/i;

/**
 * Feed URLs sanitized lately, as sent: devices name the same feeds in every upload (a history each one
 * thousands of times), and URL parsing was a third of checking an upload of episode actions.
 */
const sanitizedUrls = new Map<string, string | null>();
const SANITIZED_KEPT = 4096;
/** Longer URLs are sanitized every time: the cache holds 16 MB at the very most (4,096 keys and values of 1,024 UTF-16 units). */
const SANITIZED_URL_MAX = 1024;

/**
 * A feed URL sanitized as the gPodder API describes (update_urls): surrounding white space gone, podcast
 * app schemes made http, a missing scheme made http, scheme and host in lower case, the fragment gone; the
 * rest as sent. null: not an http(s) URL.
 */
export function sanitizeUrl(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  if (raw.length > SANITIZED_URL_MAX) return sanitize(raw);
  let url = sanitizedUrls.get(raw);
  if (url === undefined) {
    if (sanitizedUrls.size >= SANITIZED_KEPT) sanitizedUrls.clear();
    sanitizedUrls.set(raw, (url = sanitize(raw)));
  }
  return url;
}

/**
 * A URL that sanitize() gives back as it is, as most apps send feeds: http(s) in lower case, then an authority with
 * no user, no upper case and no white space, then no fragment and no white space; plainAuthority decides the rest.
 */
const CANONICAL_URL = /^https?:\/\/([^/?#@\sA-Z]*)(?:[/?][^#\s]*)?$/;

function sanitize(raw: string): string | null {
  // A first sync's 1,000 feeds are new to the cache: this test spares most of them the steps below.
  const canonical = raw.length <= MAX_URL ? CANONICAL_URL.exec(raw) : null;
  if (canonical && knownPlain(canonical[1])) return raw;
  let url = raw.trim();
  if (FEED_SCHEMES.test(url)) {
    url = url.replace(FEED_SCHEMES, "");
    if (!/^https?:\/\//i.test(url)) url = `http://${url}`;
  } else if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) {
    url = `http://${url}`;
  }
  url = url.split("#")[0];
  const parts = /^([a-z][a-z0-9+.-]*):\/\/([^/?]*)(.*)$/is.exec(url);
  if (!parts || url.length > MAX_URL || /\s/.test(url)) return null;
  const scheme = parts[1].toLowerCase();
  if (scheme !== "http" && scheme !== "https") return null;
  const at = parts[2].lastIndexOf("@");
  const authority = parts[2].slice(0, at + 1) + parts[2].slice(at + 1).toLowerCase();
  const out = `${scheme}://${authority}${parts[3]}`;
  if (at < 0 && plainAuthority(authority)) return out;
  try {
    if (!new URL(out).hostname) return null;
  } catch {
    return null;
  }
  return out;
}

/** plainAuthority's answers lately: a list of feeds names a few hosts many times (feeds.example.com, anchor.fm). */
const plainAuthorities = new Map<string, boolean>();

function knownPlain(authority: string): boolean {
  if (authority.length > 260) return plainAuthority(authority); // longer than any host name and port: never kept
  let plain = plainAuthorities.get(authority);
  if (plain === undefined) {
    if (plainAuthorities.size >= 256) plainAuthorities.clear();
    plainAuthorities.set(authority, (plain = plainAuthority(authority)));
  }
  return plain;
}

const PLAIN_AUTHORITY = /^([a-z0-9-]+(?:\.[a-z0-9-]+)*)\.?(?::(\d{1,5}))?$/;
const DOTTED_QUAD = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * Does the URL parser surely take this authority, with a hostname? Plain names (no punycode label) and dotted
 * quads with a port: most feeds, which then skip new URL() (some 3 µs each, a third of checking a first sync).
 */
function plainAuthority(authority: string): boolean {
  const m = PLAIN_AUTHORITY.exec(authority);
  if (!m || (m[2] !== undefined && Number(m[2]) > 65535)) return false;
  const labels = m[1].split(".");
  if (labels.some((l) => l.startsWith("xn--"))) return false;
  // A host that ends in a number is an IPv4 address to the parser: only the plain dotted quad is taken here.
  return !/^(?:\d+|0x[0-9a-f]*)$/.test(labels[labels.length - 1]) || DOTTED_QUAD.test(m[1]);
}

/** A list of strings from a request, or a 400 naming it. */
export function urlList(value: unknown, name: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_ITEMS || !value.every((u) => typeof u === "string"))
    throw new BadRequestError(`${name} must be a list of URLs`);
  return value;
}

/**
 * Sanitized adds and removes of one upload: [old, new] for every URL rewritten; a URL that is not
 * http(s), or one both added and removed, is a 400 (nothing is stored).
 */
export function sanitizeChanges(addIn: unknown, removeIn: unknown): { add: string[]; remove: string[]; update_urls: [string, string][] } {
  const update_urls: [string, string][] = [];
  const clean = (list: string[]) =>
    Array.from(
      new Set(
        list.map((raw) => {
          const url = sanitizeUrl(raw);
          if (url === null) throw new BadRequestError(`Not an http(s) feed URL: ${raw.slice(0, 200)}`);
          if (url !== raw) update_urls.push([raw, url]);
          return url;
        }),
      ),
    );
  const add = clean(urlList(addIn, "add"));
  const remove = clean(urlList(removeIn, "remove"));
  const added = new Set(add);
  const both = remove.find((u) => added.has(u));
  if (both) throw new BadRequestError(`A feed cannot be added and removed in one request: ${both.slice(0, 200)}`);
  return { add, remove, update_urls };
}

/** A timestamp already as the API writes it: YYYY-MM-DDTHH:MM:SS (UTC). */
const CANONICAL_TIME = /^(\d{4})-(\d\d)-(\d\d)T([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/;

/** Is this canonical timestamp a real date? (Date would roll 2023-02-29 over into March.) */
function realDay(year: string, month: string, day: string): boolean {
  const m = Number(month);
  const d = Number(day);
  if (m < 1 || m > 12 || d < 1) return false;
  if (d <= 28) return true;
  // The month's length in 2000 (a leap year; Date.UTC reads years below 100 as 19xx), then February 29 in others.
  return d <= new Date(Date.UTC(2000, m, 0)).getUTCDate() && !(m === 2 && d === 29 && !leapYear(Number(year)));
}

const leapYear = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** A timestamp as devices send it (ISO 8601, UTC when it names no zone), as the API writes it back; null when unreadable. */
export function apiTimestamp(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return new Date(value * 1000).toISOString().slice(0, 19);
  // Most devices send the API's own form: it is its own answer (a history of 100,000 plays skips 100,000 Dates).
  const canonical = typeof value === "string" ? CANONICAL_TIME.exec(value) : null;
  if (canonical && realDay(canonical[1], canonical[2], canonical[3])) return value as string;
  if (typeof value !== "string" || !/^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?/.test(value)) return null;
  const zoned = /(Z|[+-]\d\d:?\d\d)$/i.test(value) ? value : `${value}Z`;
  const at = new Date(zoned.replace(" ", "T"));
  return Number.isNaN(at.getTime()) ? null : at.toISOString().slice(0, 19);
}

/** A whole number of seconds, or null for absent (Nextcloud apps send -1 for absent). */
function seconds(value: unknown, name: string, i: number): number | null {
  if (value === undefined || value === null) return null;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new BadRequestError(`actions[${i}].${name} must be a number of seconds`);
  return n < 0 ? null : Math.round(n);
}

/**
 * Episode actions of one upload, checked as a whole before anything is stored: podcast (an http(s) feed
 * URL, sanitized like subscriptions), episode and action are required; the action in any case.
 */
export function normaliseActions(
  body: unknown,
  defaultDevice: string | null,
  now: Date,
): { actions: Omit<ActionDoc, "_id" | "user_id" | "seq" | "rkey">[]; update_urls: [string, string][] } {
  if (!Array.isArray(body)) throw new BadRequestError("Send a JSON list of episode actions");
  if (body.length > MAX_ITEMS) throw new BadRequestError(`At most ${MAX_ITEMS} episode actions per request`);
  const rewritten = new Map<string, string>();
  const fallbackTime = now.toISOString().slice(0, 19);
  const actions = body.map((item: unknown, i: number) => {
    if (!item || typeof item !== "object" || Array.isArray(item)) throw new BadRequestError(`actions[${i}] must be an object`);
    // As the device sent it: each field is checked below.
    const a = item as Record<string, unknown>;
    if (typeof a.podcast !== "string" || !a.podcast) throw new BadRequestError(`actions[${i}].podcast is required`);
    if (typeof a.episode !== "string" || !a.episode || a.episode.length > MAX_URL) throw new BadRequestError(`actions[${i}].episode is required`);
    const podcast = sanitizeUrl(a.podcast);
    if (podcast === null) throw new BadRequestError(`actions[${i}].podcast is not an http(s) feed URL`);
    if (podcast !== a.podcast) rewritten.set(a.podcast, podcast);
    const action = typeof a.action === "string" ? a.action.toLowerCase() : "";
    if (!ACTIONS.includes(action)) throw new BadRequestError(`actions[${i}].action must be one of ${ACTIONS.join(", ")}`);
    const timestamp = a.timestamp === undefined || a.timestamp === null ? fallbackTime : apiTimestamp(a.timestamp);
    if (!timestamp) throw new BadRequestError(`actions[${i}].timestamp is not an ISO 8601 time`);
    // Whatever JSON value the device sent, stringified as before (DEVICE_ID then refuses what is not an id).
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a device's JSON value, not a typed object
    const device = a.device === undefined || a.device === null || a.device === "" ? defaultDevice : String(a.device);
    if (device !== null && !DEVICE_ID.test(device)) throw new BadRequestError(`actions[${i}].device is not a device id`);
    const guid = typeof a.guid === "string" && a.guid ? a.guid.slice(0, MAX_URL) : null;
    const play = action === "play";
    return {
      podcast,
      episode: a.episode,
      guid,
      device,
      action,
      timestamp,
      started: play ? seconds(a.started, "started", i) : null,
      position: play ? seconds(a.position, "position", i) : null,
      total: play ? seconds(a.total, "total", i) : null,
    };
  });
  return { actions, update_urls: [...rewritten] };
}

/** An action as the gPodder API answers it: the optional fields only when known. */
export function gpodderAction(a: ActionDoc): GpodderEpisodeAction {
  const out: GpodderEpisodeAction = { podcast: a.podcast, episode: a.episode, action: a.action, timestamp: a.timestamp };
  if (a.device) out.device = a.device;
  if (a.guid) out.guid = a.guid;
  if (a.action === "play" && a.position !== null) {
    if (a.started !== null) out.started = a.started;
    out.position = a.position;
    if (a.total !== null) out.total = a.total;
  }
  return out;
}

/** An action as the Nextcloud gpoddersync app answers it: -1 where a number is unknown. */
export function nextcloudAction(a: ActionDoc): NextcloudEpisodeAction {
  const out: NextcloudEpisodeAction = {
    podcast: a.podcast,
    episode: a.episode,
    action: a.action.toUpperCase(),
    timestamp: a.timestamp,
    started: a.started ?? -1,
    position: a.position ?? -1,
    total: a.total ?? -1,
  };
  if (a.guid) out.guid = a.guid;
  return out;
}

/** Only the newest action of each episode (the API's `aggregated`). */
export function newestPerEpisode(actions: ActionDoc[]): ActionDoc[] {
  const newest = new Map<string, ActionDoc>();
  for (const a of actions) {
    const key = `${a.podcast}\n${a.episode}`;
    const seen = newest.get(key);
    if (!seen || seen.timestamp < a.timestamp || (seen.timestamp === a.timestamp && seen._id < a._id)) newest.set(key, a);
  }
  return [...newest.values()].sort((x, y) => x._id - y._id);
}

/**
 * The keys gpodder.net's API gives every podcast (the simple API's json and GET /api/2/updates' add add
 * their own): the catalogue's data here (p: podcasts.sync_podcasts), blanks for a feed not subscribed here yet.
 */
export function podcastObject(url: string, p: SyncPodcast | undefined) {
  return {
    url,
    title: p?.title ?? "",
    description: p?.description ?? "",
    website: p?.website ?? "",
    logo_url: p?.logo_url ?? null,
    subscribers: p?.subscribers ?? 0,
    mygpo_link: "",
  };
}
