/**
 * Push notifications of new episodes: per user settings of each platform (secrets sealed, never
 * returned), a test message, and delivery on `episodes.created` to every subscriber who turned
 * notifications on for that podcast (podcasts.notify_targets), with retries and a per-user rate limit.
 * Delivery runs after the event handler returns, so a slow or failing endpoint never holds a refresh.
 */
import type { ServiceActionsSchema, ServiceMethods } from "moleculer";
import { config } from "../../shared/config";
import { BadRequestError } from "../../shared/errors";
import type { EpisodesCreatedEvent, EpisodeSummary } from "../../shared/contracts/episodes";
import type { NotifyTarget } from "../../shared/contracts/podcasts";
import { rightsOf } from "../../shared/http";
import { encryptSecret } from "../../shared/secrets";
import type { Ctx } from "../../shared/service-types";
import { notifyTargets } from "../../shared/contracts/podcasts";
import { episodeSummaries } from "../../shared/contracts/episodes";
import { failureText, PLATFORMS, push, PushMessage, PushSettingsDoc } from "./push";
import type { NotificationsThis } from "./this";
import { NotificationSettingsAnswer, TestNotificationAnswer, UpdateNotificationSettingsAnswer } from "../../shared/contracts/notifications";
import type { PushSettings } from "../../shared/contracts/notifications";
import type { Static } from "../../shared/contracts/answers";

const id = { type: "number", integer: true, positive: true, convert: true };
const str = (max: number) => ({ type: "string", trim: true, max, optional: true, nullable: true });
const url = { type: "url", optional: true, nullable: true, empty: true };
const platform = { type: "string", trim: true, lowercase: true, enum: Object.keys(PLATFORMS) };
const SEND_TIMEOUT_MS = 10_000;

/** update_notification_settings' params: a secret left out (or "") stays as stored; null clears it. */
type UpdatePushParams = { user_id: number; platform: string; enabled: boolean } & Partial<
  Pick<PushSettingsDoc, "notifa_topic" | "notifa_server_url" | "notifa_username" | "notifb_url" | "http_url" | "http_method">
> & { [secret in "notifa_password" | "notifa_access_token" | "notifb_token" | "http_token"]?: string | null };

/** A plain field as given (absent: as stored; "" or null: none). */
function given<T>(value: T | null | undefined, stored: T | null | undefined): T | null {
  return value !== undefined ? value || null : (stored ?? null);
}

/** A secret sealed as given (absent or "": as stored; null: cleared). */
function sealed(value: string | null | undefined, stored: string | null | undefined): string | null {
  if (value === null) return null;
  return value ? encryptSecret(value) : (stored ?? null);
}

export const pushActions: ServiceActionsSchema = {
  /** GET /api/data/user/notification_settings?user_id: every platform; secrets only as *_set flags. */
  get_notification_settings: {
    idempotent: true,
    params: { user_id: id },
    response: NotificationSettingsAnswer,
    async handler(this: NotificationsThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof NotificationSettingsAnswer>> {
      const docs: PushSettingsDoc[] = await this.stores.push_settings.find({ query: { user_id: ctx.params.user_id } });
      return { settings: docs.map((d) => this.publicSettings(d)) };
    },
  },
  /** PUT /api/data/user/notification_settings: a secret left out (or "") stays as stored; null clears it. */
  update_notification_settings: {
    params: {
      user_id: id,
      platform,
      enabled: { type: "boolean", convert: true },
      notifa_topic: str(255),
      notifa_server_url: url,
      notifa_username: str(255),
      notifa_password: str(1024),
      notifa_access_token: str(1024),
      notifb_url: url,
      notifb_token: str(1024),
      http_url: url,
      http_token: str(4096),
      http_method: { type: "string", trim: true, uppercase: true, enum: ["POST", "PUT", "GET"], optional: true, nullable: true },
    },
    response: UpdateNotificationSettingsAnswer,
    async handler(this: NotificationsThis, ctx: Ctx<UpdatePushParams>): Promise<Static<typeof UpdateNotificationSettingsAnswer>> {
      const p = ctx.params;
      const plat = PLATFORMS[p.platform];
      const _id = `${p.user_id}:${plat}`;
      const stored: PushSettingsDoc | null = await this.stores.push_settings.findOne({ _id });
      const doc: PushSettingsDoc = {
        ...stored,
        _id,
        user_id: p.user_id,
        platform: plat,
        enabled: p.enabled,
        rights: rightsOf(ctx.meta.user),
        notifa_topic: given(p.notifa_topic, stored?.notifa_topic),
        notifa_server_url: given(p.notifa_server_url, stored?.notifa_server_url),
        notifa_username: given(p.notifa_username, stored?.notifa_username),
        notifb_url: given(p.notifb_url, stored?.notifb_url),
        http_url: given(p.http_url, stored?.http_url),
        http_method: given(p.http_method, stored?.http_method),
        notifa_password_sealed: sealed(p.notifa_password, stored?.notifa_password_sealed),
        notifa_access_token_sealed: sealed(p.notifa_access_token, stored?.notifa_access_token_sealed),
        notifb_token_sealed: sealed(p.notifb_token, stored?.notifb_token_sealed),
        http_token_sealed: sealed(p.http_token, stored?.http_token_sealed),
      };
      if (doc.enabled) this.checkComplete(doc);
      await this.stores.push_settings.removeMany({ _id });
      await this.stores.push_settings.insert(doc);
      this.logger.info("notification settings saved", { user_id: p.user_id, platform: plat, enabled: doc.enabled });
      return { detail: "Notification settings updated", settings: this.publicSettings(doc) };
    },
  },
  /** POST /api/data/user/test_notification: one test message now; a failing endpoint is a 400 saying why. */
  test_notification: {
    params: { user_id: id, platform },
    response: TestNotificationAnswer,
    async handler(this: NotificationsThis, ctx: Ctx<{ user_id: number; platform: string }>): Promise<Static<typeof TestNotificationAnswer>> {
      const plat = PLATFORMS[ctx.params.platform];
      const doc: PushSettingsDoc | null = await this.stores.push_settings.findOne({ _id: `${ctx.params.user_id}:${plat}` });
      if (!doc) throw new BadRequestError(`No ${plat} settings saved`);
      this.checkComplete(doc);
      try {
        await push(
          doc,
          { event: "test", title: "Test notification", message: "Notifications from your podcast server work.", user_id: doc.user_id },
          SEND_TIMEOUT_MS,
        );
      } catch (err) {
        throw new BadRequestError(`Sending failed: ${failureText(err)}`);
      }
      return { detail: "Test notification sent", success: true };
    },
  },
};

export const pushMethods: ServiceMethods = {
  publicSettings(this: NotificationsThis, d: PushSettingsDoc): PushSettings {
    return {
      platform: d.platform,
      enabled: d.enabled,
      notifa_topic: d.notifa_topic ?? null,
      notifa_server_url: d.notifa_server_url ?? null,
      notifa_username: d.notifa_username ?? null,
      notifb_url: d.notifb_url ?? null,
      http_url: d.http_url ?? null,
      http_method: d.http_method ?? null,
      notifa_password_set: !!d.notifa_password_sealed,
      notifa_access_token_set: !!d.notifa_access_token_sealed,
      notifb_token_set: !!d.notifb_token_sealed,
      http_token_set: !!d.http_token_sealed,
    };
  },
  checkComplete(this: NotificationsThis, d: PushSettingsDoc): void {
    if (d.platform === "ntfy" && !d.notifa_topic) throw new BadRequestError("notifa_topic is required for ntfy");
    if (d.platform === "gotify" && (!d.notifb_url || !d.notifb_token_sealed)) throw new BadRequestError("notifb_url and notifb_token are required for gotify");
    if (d.platform === "http" && !d.http_url) throw new BadRequestError("http_url is required for a webhook");
  },
  /** episodes.created: one message per new episode for every enabled endpoint of every subscriber with notifications on. */
  async announceEpisodes(this: NotificationsThis, ctx: Ctx<EpisodesCreatedEvent>): Promise<void> {
    const { podcast_id, episode_ids } = ctx.params;
    const targets: NotifyTarget[] = await notifyTargets(ctx, { podcast_id });
    if (!targets.length) return;
    const endpoints: PushSettingsDoc[] = await this.stores.push_settings.find({ query: { user_id: { $in: targets.map((t) => t.user_id) }, enabled: true } });
    if (!endpoints.length) return;
    const episodes: EpisodeSummary[] = await episodeSummaries(ctx, { episode_ids });
    for (const t of targets) {
      const mine = endpoints.filter((e) => e.user_id === t.user_id);
      for (const ep of mine.length ? episodes : []) {
        if (!this.takeToken(t.user_id)) {
          this.logger.warn("notification dropped: rate limit", { user_id: t.user_id, episode_id: ep.episode_id });
          continue;
        }
        const msg: PushMessage = {
          event: "episode.new",
          title: `New episode: ${t.podcast_title}`,
          message: ep.title,
          user_id: t.user_id,
          podcast_id,
          podcast_title: t.podcast_title,
          episode_id: ep.episode_id,
          episode_title: ep.title,
          episode_url: ep.url,
          pub_date: ep.pub_date,
        };
        for (const e of mine) this.deliverPush(e, msg);
      }
    }
  },
  /** Sends with retries in the background; a failure is logged (without URL or secrets) and dropped. */
  deliverPush(this: NotificationsThis, endpoint: PushSettingsDoc, msg: PushMessage): void {
    const attempt = async (n: number): Promise<void> => {
      try {
        await push(endpoint, msg, SEND_TIMEOUT_MS);
      } catch (err) {
        if (n + 1 >= config.notifyAttempts) {
          this.logger.warn("notification failed", { user_id: endpoint.user_id, platform: endpoint.platform, reason: failureText(err) });
          return;
        }
        await new Promise((r) => setTimeout(r, 500 * 2 ** n));
        return attempt(n + 1);
      }
    };
    const running: Promise<void> = attempt(0);
    this.pending.add(running);
    void running.finally(() => this.pending.delete(running)); // not awaited: sent in the background
  },
  /** Per-user budget of NOTIFY_PER_MINUTE messages in a sliding minute. */
  takeToken(this: NotificationsThis, user_id: number): boolean {
    const now = Date.now();
    const sent: number[] = (this.sentAt.get(user_id) ?? []).filter((t) => now - t < 60_000);
    if (sent.length >= config.notifyPerMinute) return false;
    sent.push(now);
    this.sentAt.set(user_id, sent);
    return true;
  },
};
