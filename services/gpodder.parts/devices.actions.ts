/**
 * Devices (GET /api/2/devices/{username}.json, POST /api/2/devices/{username}/{deviceid}.json) and
 * sync-device groups (/api/2/sync-devices/{username}.json). A device exists once it is configured or
 * uploads; every device of a user follows the user's one library, so a group's devices share their
 * subscriptions whether or not they are grouped (the groups are kept and answered as the API describes).
 */
import type { ServiceActionsSchema, ServiceMethods } from "moleculer";
import { BadRequestError } from "../../shared/errors";
import { EmptyAnswer, GpodderDevicesAnswer, SyncDevicesAnswer, type DeviceType, type GpodderDevice, type OwnSyncDevice } from "../../shared/contracts/gpodder";
import type { Ctx } from "../../shared/service-types";
import { checkDeviceId, deviceKey, DeviceDoc, deviceTypes } from "./model";
import type { GpodderThis } from "./this";

const username = { type: "string", max: 200 };
const deviceid = { type: "string", max: 200 };

export const deviceActions: ServiceActionsSchema = {
  /** GET /api/2/devices/{username}.json */
  devices: {
    idempotent: true,
    params: { username },
    response: GpodderDevicesAnswer,
    async handler(this: GpodderThis, ctx: Ctx<{ username: string }>): Promise<GpodderDevice[]> {
      const user_id: number = await this.caller(ctx);
      // The sync API's devices without is_default (which only the web's list shows).
      return (await this.ownDevices(user_id)).map(({ is_default: _default, ...d }: OwnSyncDevice) => d);
    },
  },
  /** POST /api/2/devices/{username}/{deviceid}.json: creates the device, or changes only the keys given. Answers 200 with no body. */
  update_device: {
    params: { username, deviceid, caption: { type: "string", max: 200, optional: true }, type: { type: "enum", values: deviceTypes, optional: true } },
    response: EmptyAnswer,
    async handler(this: GpodderThis, ctx: Ctx<{ username: string; deviceid: string; caption?: string; type?: DeviceType }>): Promise<null> {
      const user_id: number = await this.caller(ctx);
      const device_id = checkDeviceId(ctx.params.deviceid);
      const set: Partial<DeviceDoc> = {};
      if (ctx.params.caption !== undefined) set.caption = ctx.params.caption;
      if (ctx.params.type !== undefined) set.type = ctx.params.type;
      await this.saveDevice(user_id, device_id, set);
      return null;
    },
  },
  /** GET /api/2/sync-devices/{username}.json */
  sync_devices: {
    idempotent: true,
    params: { username },
    response: SyncDevicesAnswer,
    async handler(this: GpodderThis, ctx: Ctx<{ username: string }>): Promise<SyncDevicesAnswer> {
      return this.syncStatus(await this.caller(ctx));
    },
  },
  /** POST /api/2/sync-devices/{username}.json: {synchronize: [[a, b], ...], "stop-synchronize": [c, ...]}; answers the new status. */
  update_sync_devices: {
    params: {
      username,
      synchronize: { type: "array", items: { type: "array", items: "string", max: 100 }, max: 100, optional: true },
      "stop-synchronize": { type: "array", items: "string", max: 100, optional: true },
    },
    response: SyncDevicesAnswer,
    async handler(this: GpodderThis, ctx: Ctx<{ username: string; synchronize?: string[][]; "stop-synchronize"?: string[] }>): Promise<SyncDevicesAnswer> {
      const user_id: number = await this.caller(ctx);
      const groups: string[][] = ctx.params.synchronize ?? [];
      const stop: string[] = ctx.params["stop-synchronize"] ?? [];
      const named = [...groups.flat(), ...stop];
      // Read, changed and written back: under the user's write lease, so another process's change is not lost.
      await this.exclusive(user_id, async () => {
        const devices: DeviceDoc[] = await this.stores.gpodder_devices.find({ query: { user_id } });
        const byId = new Map(devices.map((d) => [d.device_id, d]));
        const unknown = named.find((d) => !byId.has(d));
        if (unknown !== undefined) throw new BadRequestError(`Unknown device: ${unknown.slice(0, 64)}`);
        for (const members of groups) {
          if (members.length < 2) continue;
          // Groups a listed device is already in merge into one.
          const joined = new Set(members.map((d) => byId.get(d)!.group).filter((g): g is string => !!g));
          const group = [...joined][0] ?? `group-${await this.nextId("gpodder_groups")}`;
          const ids = new Set([...members, ...devices.filter((d) => d.group && joined.has(d.group)).map((d) => d.device_id)]);
          for (const d of ids) byId.get(d)!.group = group;
        }
        for (const d of stop) byId.get(d)!.group = null;
        // A group of one synchronizes nothing.
        const sizes = new Map<string, number>();
        for (const d of byId.values()) if (d.group) sizes.set(d.group, (sizes.get(d.group) ?? 0) + 1);
        for (const d of byId.values()) if (d.group && sizes.get(d.group)! < 2) d.group = null;
        for (const d of devices) await this.stores.gpodder_devices.updateMany({ _id: d._id }, { $set: { group: d.group } });
      });
      return this.syncStatus(user_id);
    },
  },
};

export const deviceMethods: ServiceMethods = {
  /**
   * Creates the devices that do not exist yet (caption empty, type "other"), as an upload from an unknown
   * device id does. A device another process created meanwhile is left as it is.
   */
  async ensureDevices(this: GpodderThis, user_id: number, device_ids: string[]): Promise<void> {
    const wanted = [...new Set(device_ids)];
    const known = await this.findByIds(
      this.stores.gpodder_devices,
      wanted.map((d) => deviceKey(user_id, d)),
      ["device_id"],
    );
    const have = new Set(known.map((d) => d.device_id));
    const fresh: DeviceDoc[] = wanted
      .filter((d) => !have.has(d))
      .map((device_id) => ({ _id: deviceKey(user_id, device_id), user_id, device_id, caption: "", type: "other", group: null, created_at: new Date() }));
    // A refused device is one another process stored under the same key: kept as it is.
    await this.insertEach(this.stores.gpodder_devices, fresh, () => Promise.resolve(null));
  },
  /** Creates the device unless it exists, then sets these of its fields (after the user's earlier writes here). */
  saveDevice(this: GpodderThis, user_id: number, device_id: string, set: Partial<Pick<DeviceDoc, "caption" | "type">>): Promise<void> {
    return this.serial(user_id, async () => {
      await this.ensureDevices(user_id, [device_id]);
      if (Object.keys(set).length) await this.stores.gpodder_devices.updateMany({ _id: deviceKey(user_id, device_id) }, { $set: set });
    });
  },
  /** 404 unless the device exists (what the API answers for another device's list). */
  async existingDevice(this: GpodderThis, user_id: number, device_id: string): Promise<DeviceDoc | null> {
    return this.stores.gpodder_devices.findOne({ _id: deviceKey(user_id, device_id) });
  },
  async syncStatus(this: GpodderThis, user_id: number): Promise<SyncDevicesAnswer> {
    const devices: DeviceDoc[] = await this.stores.gpodder_devices.find({ query: { user_id }, sort: ["created_at"] });
    const groups = new Map<string, string[]>();
    const alone: string[] = [];
    for (const d of devices) {
      if (!d.group) alone.push(d.device_id);
      else groups.set(d.group, [...(groups.get(d.group) ?? []), d.device_id]);
    }
    return { synchronized: [...groups.values()], "not-synchronized": alone };
  },
};
