/**
 * The podsync routes over this server's own sync server (services/gpodder.service.ts) for a user without a
 * gPodder account elsewhere: whether it is on for the user (their switch, users.get_sync_server, and the
 * operator's SYNC_SERVER_ENABLED), its devices and figures from the gpodder service, and the status in the
 * words of PinePods' web client (sync_type "gpodder" is this server's own, "external" another gPodder server,
 * "both" the two; its gpodder_enabled is podsync_enabled here).
 */
import type { ServiceMethods } from "moleculer";
import { publicOrigin } from "../../shared/client-address";
import { NotFoundError } from "../../shared/errors";
import type { OwnSyncDevice, OwnSyncStatistics } from "../../shared/contracts/gpodder";
import { accountDevices, accountStatistics } from "../../shared/contracts/gpodder";
import type { Caller } from "../../shared/contracts/call";
import type { PodsyncToggleAnswer, SyncDevice, SyncStatisticsAnswer } from "../../shared/contracts/sync";
import type { SyncServerAnswer } from "../../shared/contracts/users";
import { getSyncServer } from "../../shared/contracts/users";
import type { SyncSettingsDoc } from "./model";
import type { AnyCtx, SyncThis } from "./this";

/** A device of this server's own sync server as the podsync answers show one. */
export function ownDevice(d: OwnSyncDevice): SyncDevice {
  const caption = d.caption || d.id;
  return {
    id: d.id,
    name: caption,
    caption,
    type: d.type,
    subscriptions: d.subscriptions,
    is_default: d.is_default,
    is_active: true,
    is_remote: false,
    last_sync: null,
  };
}

/** Whether this server's sync routes are open to the user: their own switch and the operator's. */
export const ownServerOpen = (a: SyncServerAnswer): boolean => a.sync_server && a.server_enabled;

export const ownServerMethods: ServiceMethods = {
  async ownServerOn(this: SyncThis, ctx: Caller, user_id: number): Promise<boolean> {
    return ownServerOpen(await getSyncServer(ctx, { user_id }));
  },
  /** The server the podsync page works with: the user's gPodder account (returned), else this server's own (null); 404 when neither. */
  async syncTarget(this: SyncThis, ctx: Caller, user_id: number): Promise<SyncSettingsDoc | null> {
    const s: SyncSettingsDoc | null = await this.adapter.findOne({ _id: user_id });
    if (s?.sync_type === "gpodder") return s;
    if (await this.ownServerOn(ctx, user_id)) return null;
    throw new NotFoundError("No sync server set up: add a gPodder server, or switch this server's sync server on");
  },
  /**
   * The status fields of podsync/status and podsync/toggle. The client's words have no name for this server's
   * own with a cloudsync account: "gpodder" then (the cloudsync address is get_podsync_settings' to show).
   */
  serverStatus(this: SyncThis, ctx: AnyCtx, s: SyncSettingsDoc | null, own: boolean): Omit<PodsyncToggleAnswer, "detail"> {
    const external = s?.sync_type === "gpodder";
    return {
      enabled: own,
      sync_type: own ? (external ? "both" : "gpodder") : external ? "external" : s ? "nextcloud" : "None",
      podsync_enabled: own,
      external_enabled: external,
      external_url: external ? s.server_url : null,
      // Where phones reach this server's own sync routes.
      api_url: own ? publicOrigin(ctx.meta) || null : null,
    };
  },
  async ownServerDevices(this: SyncThis, ctx: Caller, user_id: number): Promise<SyncDevice[]> {
    const devices: OwnSyncDevice[] = await accountDevices(ctx, { user_id });
    return devices.map(ownDevice);
  },
  /** The documents' sync statistics record of this server's own sync server, counted from what the user's devices sent. */
  async ownServerStatistics(this: SyncThis, ctx: AnyCtx, user_id: number): Promise<SyncStatisticsAnswer> {
    const st: OwnSyncStatistics = await accountStatistics(ctx, { user_id });
    return {
      server_url: publicOrigin(ctx.meta),
      sync_type: "gpodder",
      sync_enabled: true,
      server_devices: st.devices.map((d) => ({ id: d.id, caption: d.caption || d.id, device_type: d.type, type: d.type, subscriptions: d.subscriptions })),
      total_devices: st.devices.length,
      server_subscriptions: st.subscriptions.map((url) => ({ url, title: null, description: null })),
      total_subscriptions: st.subscriptions.length,
      recent_episode_actions: st.recent_episode_actions,
      total_episode_actions: st.total_episode_actions,
      connection_status: "connected",
      last_sync_timestamp: st.last_change,
      // Nothing is reached over the network: the records are read in place.
      api_endpoints_tested: [],
    };
  },
};
