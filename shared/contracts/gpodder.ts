/**
 * Shapes of the gpodder service (this server as a gPodder API v2 and Nextcloud gpoddersync server):
 * what its HTTP answers carry, and the device that stands for this server in them.
 */

/** The device id under which changes made here (through /api/data, or by this server's own podsync/cloudsync) reach the phones. */
export const SERVER_DEVICE = "podcast-server";
/** The device id a Nextcloud gpoddersync client (which names no device) writes as. */
export const NEXTCLOUD_DEVICE = "nextcloud";

/** The device types of the gPodder API. */
export const DEVICE_TYPES = ["desktop", "laptop", "mobile", "server", "other"] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

/** GET /api/2/devices/{username}.json item. */
export interface GpodderDevice {
  id: string;
  caption: string;
  type: DeviceType;
  subscriptions: number;
}

/** An episode action as the gPodder API carries it (as a device sent it; `guid` as Nextcloud apps add it). */
export interface GpodderEpisodeAction {
  podcast: string;
  episode: string;
  guid?: string;
  device?: string;
  action: string;
  /** UTC, ISO 8601 without a zone ("2024-01-31T10:00:00"). */
  timestamp: string;
  started?: number;
  position?: number;
  total?: number;
}

/** What the library side of a device's feed is: applied here, still to try, or failed for now (tried again later; the reason is kept). */
export type LibraryState = "applied" | "pending" | "failed";

