/**
 * Shapes of the gpodder service (this server as a gPodder API v2 and Nextcloud gpoddersync server):
 * what its HTTP answers carry, and the device that stands for this server in them.
 */
import { action } from "./call";
import { ByMediaType, NoBody, Nullable, Type, type Static } from "./answers";

/** The device id under which changes made here (through /api/data, or by this server's own podsync/cloudsync) reach the phones. */
export const SERVER_DEVICE = "podcast-server";
/** The device id a Nextcloud gpoddersync client (which names no device) writes as. */
export const NEXTCLOUD_DEVICE = "nextcloud";

/** The device types of the gPodder API. */
export const DEVICE_TYPES = ["desktop", "laptop", "mobile", "server", "other"] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

/** GET /api/2/devices/{username}.json item (`subscriptions`: every device follows the user's one list). */
export const GpodderDevice = Type.Object({
  id: Type.String(),
  caption: Type.String(),
  type: Type.Union(DEVICE_TYPES.map((t) => Type.Literal(t))),
  subscriptions: Type.Integer(),
});
export type GpodderDevice = Static<typeof GpodderDevice>;
export const GpodderDevicesAnswer = Type.Array(GpodderDevice);

/** A clock value of the user's sync data: what the device sends back as `since` next time. */
const Timestamp = Type.Integer({ minimum: 0, description: "Send as since next time" });
/** [as sent, as stored]: each feed URL the server sanitized (mygpoclient and AntennaPod rewrite theirs). */
const UpdateUrls = Type.Array(Type.Tuple([Type.String(), Type.String()]));
/** UTC, ISO 8601 without a zone ("2024-01-31T10:00:00"). */
const ApiTime = Type.String({ pattern: "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d$" });

/** An episode action as the gPodder API carries it (as a device sent it; `guid` as Nextcloud apps add it); the numbers only for a play with a position. */
export const GpodderEpisodeAction = Type.Object({
  podcast: Type.String(),
  episode: Type.String(),
  guid: Type.Optional(Type.String()),
  device: Type.Optional(Type.String()),
  action: Type.String(),
  timestamp: ApiTime,
  started: Type.Optional(Type.Integer()),
  position: Type.Optional(Type.Integer()),
  total: Type.Optional(Type.Integer()),
});
export type GpodderEpisodeAction = Static<typeof GpodderEpisodeAction>;

/**
 * GET /api/2/subscriptions/{username}/{deviceid}.json and the Nextcloud app's GET subscriptions: the feeds whose
 * last change came after `since`, each in `add` or `remove` by that change (since 0: every feed ever named).
 */
export const SubscriptionChangesAnswer = Type.Object({ add: Type.Array(Type.String()), remove: Type.Array(Type.String()), timestamp: Timestamp });
export type SubscriptionChangesAnswer = Static<typeof SubscriptionChangesAnswer>;
/** POST of subscription changes or episode actions (gPodder API v2): the new clock value and the URLs rewritten. */
export const UploadAnswer = Type.Object({ timestamp: Timestamp, update_urls: UpdateUrls });
export type UploadAnswer = Static<typeof UploadAnswer>;
/** The Nextcloud app's POSTs: the new clock value only. */
export const NextcloudUploadAnswer = Type.Object({ timestamp: Timestamp });
export type NextcloudUploadAnswer = Static<typeof NextcloudUploadAnswer>;
/** GET /api/2/episodes/{username}.json */
export const EpisodeActionsAnswer = Type.Object({ actions: Type.Array(GpodderEpisodeAction), timestamp: Timestamp });
export type EpisodeActionsAnswer = Static<typeof EpisodeActionsAnswer>;

/** An episode action as the Nextcloud gpoddersync app answers it: action in upper case, -1 where a number is unknown. */
export const NextcloudEpisodeAction = Type.Object({
  podcast: Type.String(),
  episode: Type.String(),
  guid: Type.Optional(Type.String()),
  action: Type.String(),
  timestamp: ApiTime,
  started: Type.Integer(),
  position: Type.Integer(),
  total: Type.Integer(),
});
export type NextcloudEpisodeAction = Static<typeof NextcloudEpisodeAction>;
/** GET /index.php/apps/gpoddersync/episode_action */
export const NextcloudEpisodeActionsAnswer = Type.Object({ actions: Type.Array(NextcloudEpisodeAction), timestamp: Timestamp });
export type NextcloudEpisodeActionsAnswer = Static<typeof NextcloudEpisodeActionsAnswer>;

/** What the library side of a device's feed is: applied here, still to try, or failed for now (tried again later; the reason is kept). */
export const LibraryState = Type.Union([Type.Literal("applied"), Type.Literal("pending"), Type.Literal("failed")]);
export type LibraryState = Static<typeof LibraryState>;

/**
 * A podcast as gpodder.net's API describes one: the catalogue's data here ("" for text and null for the
 * logo when the feed is not subscribed here yet), `subscribers` the users of this server subscribed to it,
 * `mygpo_link` empty (there is no gpodder.net page of it).
 */
const PodcastFields = {
  url: Type.String(),
  title: Type.String(),
  description: Type.String(),
  website: Type.String(),
  logo_url: Nullable(Type.String()),
  subscribers: Type.Integer(),
  mygpo_link: Type.String(),
};
/** GET /api/2/updates/{username}/{deviceid}.json: a podcast added (gPodder's client library requires every key). */
const UpdatedPodcast = Type.Object({ ...PodcastFields, subscribers_last_week: Type.Integer() });
/** An episode stored here since then in one of the user's feeds, with its status (the newest action, else "new"). */
const UpdatedEpisode = Type.Object({
  title: Type.String(),
  url: Type.String(),
  podcast_title: Type.String(),
  podcast_url: Type.String(),
  description: Type.String(),
  website: Type.String(),
  mygpo_link: Type.String(),
  released: ApiTime,
  status: Type.String(),
  action: Type.Optional(GpodderEpisodeAction),
});
export const DeviceUpdatesAnswer = Type.Object({
  add: Type.Array(UpdatedPodcast),
  remove: Type.Array(Type.String()),
  updates: Type.Array(UpdatedEpisode),
  timestamp: Timestamp,
  not_applied: Type.Array(Type.Object({ url: Type.String(), library: LibraryState, attempts: Type.Integer(), last_error: Nullable(Type.String()) }), {
    description: "Not in the gPodder API: the feeds this server could not subscribe to yet, and why",
  }),
});
export type DeviceUpdatesAnswer = Static<typeof DeviceUpdatesAnswer>;

/** GET and POST /api/2/sync-devices/{username}.json: the groups of synchronized devices, and the devices in none. */
export const SyncDevicesAnswer = Type.Object({ synchronized: Type.Array(Type.Array(Type.String())), "not-synchronized": Type.Array(Type.String()) });
export type SyncDevicesAnswer = Static<typeof SyncDevicesAnswer>;

/** The simple API's lists in opml and txt (the same for a device's list and for all of the user's). */
const SimpleTextForms = {
  "text/x-opml": Type.String({ description: "opml: an OPML 2.0 document" }),
  "text/plain": Type.String({ description: "txt: one feed URL a line" }),
};
/** GET /subscriptions/{username}/{deviceid}.{format}: a JSON list of feed URLs, an OPML document, or one URL a line. */
export const SimpleSubscriptionsAnswer = ByMediaType("The user's feed URLs in the format the path names", {
  "application/json": Type.Array(Type.String(), { description: "json: a list of feed URLs" }),
  ...SimpleTextForms,
});
export type SimpleSubscriptionsAnswer = Static<typeof SimpleSubscriptionsAnswer>;

/** GET /subscriptions/{username}.json item: gpodder.net's podcast object (its Get All Subscriptions answers these keys). */
export const SimplePodcast = Type.Object({
  ...PodcastFields,
  author: Type.String(),
  scaled_logo_url: Nullable(Type.String(), { description: "The logo as it is: this server keeps no scaled copies" }),
});
export type SimplePodcast = Static<typeof SimplePodcast>;
/** GET /subscriptions/{username}.{format}: every subscription of the user; json as podcast objects, opml and txt as the device lists. */
export const SimpleAllSubscriptionsAnswer = ByMediaType("The user's subscriptions in the format the path names", {
  "application/json": Type.Array(SimplePodcast, { description: "json: a podcast object per feed" }),
  ...SimpleTextForms,
});
export type SimpleAllSubscriptionsAnswer = Static<typeof SimpleAllSubscriptionsAnswer>;

/** A POST or PUT of the gPodder API answered 200 with an empty body (gPodder's client library counts an empty body as success). */
export const EmptyAnswer = NoBody("200 with an empty body");

// --- Internal results for PinePods' web client's sync page over this server (services/gpodder.parts/web.actions.ts) ---

/** gpodder.account_devices item: a device of the user, and whether it is the default (the chosen one, else the oldest). */
export interface OwnSyncDevice {
  id: string;
  caption: string;
  type: DeviceType;
  subscriptions: number;
  is_default: boolean;
}
/** gpodder.account_statistics result: what the user's devices sent, counted; last_change: when the sync data last changed. */
export interface OwnSyncStatistics {
  devices: OwnSyncDevice[];
  subscriptions: string[];
  total_episode_actions: number;
  recent_episode_actions: Omit<GpodderEpisodeAction, "guid">[];
  last_change: string | null;
}
/** gpodder.account_apply result: the feeds devices sent that still could not be subscribed here, and why. */
export interface OwnSyncApplied {
  failed_feeds: { url: string; reason: string }[];
}

// --- Calls to the gpodder service and its events (shared/contracts/call.ts) ---

/** The user's devices on this sync server, oldest first, with the default. */
export const accountDevices = action<{ user_id: number }, OwnSyncDevice[]>("gpodder.account_devices");
/** Makes or changes a device of the caller (ctx.meta.user) from the web page, as if the device had configured itself. */
export const accountSaveDevice = action<{ device_id: string; caption?: string | null; type: DeviceType }, OwnSyncDevice>("gpodder.account_save_device");
/** Chooses the user's default device (404 for a device they do not have). */
export const accountSetDefault = action<{ user_id: number; device_id: string }, OwnSyncDevice>("gpodder.account_set_default");
/** What the user's devices sent, counted. */
export const accountStatistics = action<{ user_id: number }, OwnSyncStatistics>("gpodder.account_statistics");
/** Applies what the user's devices sent now; the feeds that still could not be subscribed (force: the failed ones are tried now). */
export const accountApply = action<{ user_id: number; force?: boolean }, OwnSyncApplied>("gpodder.account_apply");
