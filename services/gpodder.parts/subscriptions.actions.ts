/**
 * Subscriptions as devices exchange them: changes per device with `since` (gPodder API v2), the simple
 * API's whole lists in json, opml and txt, and the Nextcloud gpoddersync app's changes. Every device of
 * a user reads and writes the user's one list (a change of one device reaches the others); each URL is
 * kept as sent (sanitized as the API describes), whether or not this server can fetch it.
 */
import type { ServiceActionsSchema, ServiceMethods } from "moleculer";
import { isDuplicateKeyError } from "../../shared/db.mixin";
import { BadRequestError, NotFoundError } from "../../shared/errors";
import {
  EmptyAnswer,
  NEXTCLOUD_DEVICE,
  NextcloudUploadAnswer,
  SimpleAllSubscriptionsAnswer,
  SimplePodcast,
  SimpleSubscriptionsAnswer,
  SubscriptionChangesAnswer,
  UploadAnswer,
} from "../../shared/contracts/gpodder";
import type { SyncPodcast } from "../../shared/contracts/podcasts";
import { syncPodcasts } from "../../shared/contracts/podcasts";
import type { Ctx } from "../../shared/service-types";
import { buildOpml, parseOpml } from "../../shared/opml";
import { checkDeviceId, FeedDoc, feedKey, feedsChanged, feedsOf, podcastObject, sanitizeChanges, sinceOf } from "./model";
import type { FeedMoves, GpodderThis } from "./this";

const username = { type: "string", max: 200 };
const deviceid = { type: "string", max: 200 };
const format = { type: "enum", values: ["json", "opml", "txt"] };
const since = { type: "any", optional: true };
const list = { type: "any", optional: true };

/** Feeds in the order they were received (by clock value, then URL), as devices list them. */
const inOrder = <T extends Pick<FeedDoc, "seq" | "url">>(feeds: T[]): T[] => feeds.sort((a, b) => a.seq - b.seq || (a.url < b.url ? -1 : 1));

/** The simple API's formats (the path's extension). */
type SimpleFormat = "json" | "opml" | "txt";
/** A simple API route's Context: its answer's media type follows the format. */
type ListCtx<P> = Ctx<P> & { meta: { $responseType?: string } };

const CONTENT_TYPES: Record<string, string> = {
  json: "application/json; charset=utf-8",
  opml: "text/x-opml; charset=utf-8",
  txt: "text/plain; charset=utf-8",
};

/** The simple API's answer of a list of feeds in one of its formats: json as `json` makes it, opml and txt of the feed URLs. */
async function simpleList<T>(ctx: ListCtx<unknown>, urls: string[], fmt: string, json: () => T | Promise<T>): Promise<T | string> {
  ctx.meta.$responseType = CONTENT_TYPES[fmt];
  if (fmt === "json") return json();
  if (fmt === "txt") return urls.map((u) => `${u}\n`).join("");
  return buildOpml(
    "Subscriptions",
    urls.map((url) => ({ title: url, feed_url: url, website_url: null })),
  );
}

/** The feed URLs of a simple API upload in its format (a JSON list, one URL a line, or OPML). */
function parseSimpleList(body: unknown, fmt: string): string[] {
  if (fmt === "json") {
    const parsed: unknown = typeof body === "string" ? JSON.parse(body) : body;
    if (!Array.isArray(parsed) || !parsed.every((u): u is string => typeof u === "string")) throw new BadRequestError("Send a JSON list of feed URLs");
    return parsed;
  }
  if (typeof body !== "string") throw new BadRequestError(`Send the ${fmt} list as the request body`);
  if (fmt === "txt")
    return body
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
  try {
    return parseOpml(body).map((f) => f.url);
  } catch (err) {
    throw new BadRequestError(`Not an OPML document: ${(err as Error).message}`);
  }
}

export const subscriptionActions: ServiceActionsSchema = {
  /** GET /api/2/subscriptions/{username}/{deviceid}.json?since= -> {add, remove, timestamp} */
  subscription_changes: {
    idempotent: true,
    params: { username, deviceid, since },
    response: SubscriptionChangesAnswer,
    async handler(this: GpodderThis, ctx: Ctx<{ username: string; deviceid: string; since?: unknown }>): Promise<SubscriptionChangesAnswer> {
      const user_id: number = await this.caller(ctx);
      const device_id = checkDeviceId(ctx.params.deviceid);
      await this.serial(user_id, () => this.ensureDevices(user_id, [device_id]));
      return this.changesSince(user_id, sinceOf(ctx.params.since));
    },
  },
  /** POST /api/2/subscriptions/{username}/{deviceid}.json {add, remove} -> {timestamp, update_urls} */
  upload_subscription_changes: {
    params: { username, deviceid, add: list, remove: list },
    response: UploadAnswer,
    async handler(this: GpodderThis, ctx: Ctx<{ username: string; deviceid: string; add?: unknown; remove?: unknown }>): Promise<UploadAnswer> {
      const user_id: number = await this.caller(ctx);
      const device_id = checkDeviceId(ctx.params.deviceid);
      const { add, remove, update_urls } = sanitizeChanges(ctx.params.add, ctx.params.remove);
      // Feeds that moved come back as update_urls too (the API's way to tell a device a URL to use instead).
      const rewritten: [string, string][] = [];
      const timestamp: number = await this.changeFeeds(user_id, device_id, add, remove, true, { rewritten });
      // Each URL as sent, with the one stored: sanitized, then followed where its feed moved.
      const moved = new Map(rewritten);
      const sanitized = new Set(update_urls.map(([, clean]) => clean));
      return {
        timestamp,
        update_urls: [
          ...update_urls.map(([raw, clean]): [string, string] => [raw, moved.get(clean) ?? clean]),
          ...rewritten.filter(([from]) => !sanitized.has(from)),
        ],
      };
    },
  },
  /**
   * GET /subscriptions/{username}.{format}: every feed of the user; in json gpodder.net's podcast objects
   * (its Get All Subscriptions), with what this server's catalogue knows of each feed (one podcasts call).
   */
  simple_subscriptions: {
    idempotent: true,
    params: { username, format },
    response: SimpleAllSubscriptionsAnswer,
    async handler(this: GpodderThis, ctx: ListCtx<{ username: string; format: SimpleFormat }>): Promise<SimpleAllSubscriptionsAnswer> {
      const user_id: number = await this.caller(ctx);
      const urls: string[] = await this.subscribedUrls(user_id);
      return simpleList(ctx, urls, ctx.params.format, async () => {
        const known: SyncPodcast[] = urls.length ? await syncPodcasts(ctx, { user_id, feed_urls: urls }) : [];
        const byUrl = new Map(known.map((p) => [p.feed_url, p]));
        return urls.map((url): SimplePodcast => {
          const p = byUrl.get(url);
          return { ...podcastObject(url, p), author: p?.author ?? "", scaled_logo_url: p?.logo_url ?? null };
        });
      });
    },
  },
  /** GET /subscriptions/{username}/{deviceid}.{format}: the device's feeds; 404 for a device that does not exist. */
  simple_device_subscriptions: {
    idempotent: true,
    params: { username, deviceid, format },
    response: SimpleSubscriptionsAnswer,
    async handler(this: GpodderThis, ctx: ListCtx<{ username: string; deviceid: string; format: SimpleFormat }>): Promise<SimpleSubscriptionsAnswer> {
      const user_id: number = await this.caller(ctx);
      if (!(await this.existingDevice(user_id, checkDeviceId(ctx.params.deviceid)))) throw new NotFoundError("No such device");
      const urls: string[] = await this.subscribedUrls(user_id);
      return simpleList(ctx, urls, ctx.params.format, () => urls);
    },
  },
  /** PUT /subscriptions/{username}/{deviceid}.{format}: the device's whole list, replacing it (feeds left out are removed). Answers 200 with no body. */
  put_simple_subscriptions: {
    params: { username, deviceid, format, body: { type: "any", optional: true } },
    response: EmptyAnswer,
    async handler(this: GpodderThis, ctx: Ctx<{ username: string; deviceid: string; format: SimpleFormat; body?: unknown }>): Promise<null> {
      const user_id: number = await this.caller(ctx);
      const device_id = checkDeviceId(ctx.params.deviceid);
      let urls: string[];
      try {
        urls = parseSimpleList(ctx.params.body, ctx.params.format);
      } catch (err) {
        if (err instanceof SyntaxError) throw new BadRequestError("Malformed JSON");
        throw err;
      }
      const { add } = sanitizeChanges(urls, []);
      const wanted = new Set(add);
      const current: string[] = await this.subscribedUrls(user_id);
      await this.changeFeeds(
        user_id,
        device_id,
        add,
        current.filter((u) => !wanted.has(u)),
      );
      return null;
    },
  },
  /** GET /index.php/apps/gpoddersync/subscriptions?since= -> {add, remove, timestamp} */
  nextcloud_subscriptions: {
    idempotent: true,
    params: { since },
    response: SubscriptionChangesAnswer,
    async handler(this: GpodderThis, ctx: Ctx<{ since?: unknown }>): Promise<SubscriptionChangesAnswer> {
      const user_id: number = await this.caller(ctx);
      return this.changesSince(user_id, sinceOf(ctx.params.since));
    },
  },
  /** POST /index.php/apps/gpoddersync/subscription_change/create {add, remove} -> {timestamp} */
  nextcloud_subscription_change: {
    params: { add: list, remove: list },
    response: NextcloudUploadAnswer,
    async handler(this: GpodderThis, ctx: Ctx<{ add?: unknown; remove?: unknown }>): Promise<NextcloudUploadAnswer> {
      const user_id: number = await this.caller(ctx);
      const { add, remove } = sanitizeChanges(ctx.params.add, ctx.params.remove);
      return { timestamp: await this.changeFeeds(user_id, NEXTCLOUD_DEVICE, add, remove) };
    },
  },
};

export const subscriptionMethods: ServiceMethods = {
  /**
   * The feeds changed after `since`, each by its last change (one record per feed: a feed removed and
   * added again is in add only, one added and removed again in remove only), and the clock to ask from
   * next. Since 0 that is every feed ever named, removed ones too: a device that lost its sync state
   * learns what to drop. One read of the user's feeds (a range of _id), SQLite or MongoDB keeping the changed ones: a feed
   * is one record however often it changed, so this costs the user's feeds, never the history.
   */
  async changesSince(this: GpodderThis, user_id: number, since: number): Promise<SubscriptionChangesAnswer> {
    const timestamp: number = await this.clockOf(user_id);
    const changed =
      since >= timestamp
        ? []
        : inOrder(await this.findFields(this.stores.gpodder_feeds, feedsChanged(user_id, since, timestamp), ["url", "subscribed", "seq"]));
    return {
      add: changed.filter((f) => f.subscribed).map((f) => f.url),
      remove: changed.filter((f) => !f.subscribed).map((f) => f.url),
      timestamp,
    };
  },
  async subscribedUrls(this: GpodderThis, user_id: number): Promise<string[]> {
    return inOrder(await this.findFields(this.stores.gpodder_feeds, { ...feedsOf(user_id), subscribed: true }, ["url", "seq"])).map((f) => f.url);
  },
  /**
   * Records a device's adds and removes under one new clock value (only real changes are written), then
   * applies them to the library. fromDevice false: changes of the library itself, written as SERVER_DEVICE's
   * (decided by this flag, not the name: another instance of this server syncs as a device of that name).
   * moves.from (old URL -> new, with fromDevice false): feeds that moved; each old URL's record says where
   * (moved_to), so a device that still sends it has it replaced by the new one, which moves.rewritten collects.
   */
  async changeFeeds(
    this: GpodderThis,
    user_id: number,
    device: string,
    addIn: string[],
    removeIn: string[],
    fromDevice = true,
    moves: FeedMoves = {},
  ): Promise<number> {
    let add = addIn;
    let remove = removeIn;
    /** The ids of the feeds this write changed: the library applies those (applySoon). */
    let changed: string[] = [];
    const seq: number = await this.stamp(user_id, async (seq: number) => {
      if (fromDevice) await this.ensureDevices(user_id, [device]);
      const library = fromDevice ? "pending" : "applied";
      const doc = (url: string, subscribed: boolean): FeedDoc => {
        const made: FeedDoc = { _id: feedKey(user_id, url), url, subscribed, seq, device, library };
        const to = moves.from?.get(url);
        if (to !== undefined) made.moved_to = to;
        return made;
      };
      // Marked before the feeds are written: a process that dies in between leaves a mark with nothing to apply, never the reverse.
      let marked = false;
      const mark = async () => {
        if (fromDevice && !marked) await this.adapter.updateMany({ _id: user_id }, { $set: { feeds_due_at: Date.now(), feeds_mark: seq } });
        marked = true;
      };
      // Only adds, none of them stored yet (a first sync's whole list): written at once, with nothing read. When one is
      // stored after all (a unique-key refusal), what is stored decides, as for every other upload: MongoDB's ordered
      // insert may have written those before it, which the read then finds as this write's own.
      if (add.length && !remove.length) {
        await mark();
        const docs = add.map((u) => doc(u, true));
        const written = await this.stores.gpodder_feeds.insertMany(docs).then(
          () => true,
          (err: unknown) => {
            if (isDuplicateKeyError(err)) return false;
            throw err;
          },
        );
        if (written) {
          changed = docs.map((d) => d._id);
          return;
        }
      }
      let known = await this.findByIds(
        this.stores.gpodder_feeds,
        [...add, ...remove].map((u) => feedKey(user_id, u)),
        ["url", "subscribed", "moved_to"],
      );
      const movedTo = new Map(known.filter((f) => f.moved_to).map((f) => [f.url, f.moved_to!]));
      if (fromDevice && movedTo.size) {
        // A feed that moved, sent under its old URL (a device that has not synced since): the new URL stands for it.
        const follow = (urls: string[]) => [...new Set(urls.map((u) => movedTo.get(u) ?? u))];
        for (const [from, to] of movedTo) moves.rewritten?.push([from, to]);
        [add, remove] = [follow(add), follow(remove)];
        known = await this.findByIds(
          this.stores.gpodder_feeds,
          [...add, ...remove].map((u) => feedKey(user_id, u)),
          ["url", "subscribed", "moved_to"],
        );
      }
      const state = new Map(known.map((f) => [f.url, f.subscribed]));
      const changes: [string, boolean][] = [
        ...add.filter((u) => state.get(u) !== true).map((u) => [u, true] as [string, boolean]),
        ...remove.filter((u) => state.get(u) === true || moves.from?.has(u)).map((u) => [u, false] as [string, boolean]),
      ];
      if (changes.length) await mark();
      changed = changes.map(([url]) => feedKey(user_id, url));
      // Feeds seen before are updated one by one (a failed try's fields cleared); new ones inserted at once.
      for (const [url, subscribed] of changes.filter(([url]) => state.has(url))) {
        const { _id, ...set } = doc(url, subscribed);
        await this.stores.gpodder_feeds.updateMany({ _id }, { $set: { moved_to: null, attempts: 0, last_error: null, next_try: null, ...set } });
      }
      const fresh = changes.filter(([url]) => !state.has(url)).map(([url, subscribed]) => doc(url, subscribed));
      if (fresh.length) await this.stores.gpodder_feeds.insertMany(fresh);
    });
    // Never rejects; the upload does not wait for it.
    if (fromDevice) void this.applySoon(user_id, changed);
    return seq;
  },
};
