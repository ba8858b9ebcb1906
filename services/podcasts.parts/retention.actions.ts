/**
 * Retention of downloads (docs/library.md "Retention of downloads"): per user a default, per podcast its own settings
 * over it, field by field. delete_after_days is the auto-delete days (podcast/set_auto_download_delete_days
 * writes the subscription's field, user/set_auto_download_delete_days the user's): one fact, one field, so the
 * older routes and these agree. keep_last and keep_saved are kept beside it. The downloads service's scheduled
 * pass reads every subscription's through auto_delete_rules (services/downloads.parts/retention.ts applies them).
 */
import type { ServiceActionsSchema } from "moleculer";
import { BadRequestError, NotFoundError } from "../../shared/errors";
import { type AutoDeleteRule, RetentionAnswer, type SetRetentionParams } from "../../shared/contracts/podcasts";
import { retentionDefaults, type RetentionDefaults, setRetentionDefaults } from "../../shared/contracts/users";
import type { Caller } from "../../shared/contracts/call";
import type { Ctx } from "../../shared/service-types";
import type { PodcastsThis } from "./this";
import { id, type SubscriptionDoc } from "./model";

const limit = (max: number) => ({ type: "number", integer: true, min: 0, max, convert: true, optional: true, nullable: true });
const optionalPodcast = { ...id, optional: true, nullable: true };

/** A subscription's retention: its own fields, else the user's defaults. */
function merged(user_id: number, sub: SubscriptionDoc | null, d: RetentionDefaults): RetentionAnswer {
  const own = {
    keep_last: sub?.retention_keep_last != null,
    delete_after_days: sub?.auto_download_delete_days != null,
    keep_saved: sub?.retention_keep_saved != null,
  };
  return {
    user_id,
    podcast_id: sub?.podcast_id ?? null,
    keep_last: sub?.retention_keep_last ?? d.keep_last,
    delete_after_days: sub?.auto_download_delete_days ?? d.delete_after_days,
    keep_saved: sub?.retention_keep_saved ?? d.keep_saved,
    customized: own.keep_last || own.delete_after_days || own.keep_saved,
    own,
  };
}

/** The retention in force for the user's subscription (null: the user's default); 404 for an unknown user. */
export async function retentionOf(ctx: Caller, user_id: number, sub: SubscriptionDoc | null): Promise<RetentionAnswer> {
  const defaults = (await retentionDefaults(ctx, { user_ids: [user_id] }))[user_id];
  if (!defaults) throw new NotFoundError("User not found");
  return merged(user_id, sub, defaults);
}

export const retentionActions: ServiceActionsSchema = {
  /** GET /api/data/retention?user_id=[&podcast_id=]: the podcast's retention (404 unless subscribed), or the user's default. */
  get_retention: {
    idempotent: true,
    params: { user_id: id, podcast_id: optionalPodcast },
    response: RetentionAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; podcast_id?: number | null }>): Promise<RetentionAnswer> {
      const { user_id, podcast_id } = ctx.params;
      return retentionOf(ctx, user_id, podcast_id ? await this.subscriptionOf(user_id, podcast_id) : null);
    },
  },
  /** POST /api/data/retention: the fields sent become the podcast's own (or the user's default); the others stay. */
  set_retention: {
    params: {
      user_id: id,
      podcast_id: optionalPodcast,
      keep_last: limit(100_000),
      delete_after_days: limit(3650),
      keep_saved: { type: "boolean", convert: true, optional: true },
    },
    response: RetentionAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<SetRetentionParams>): Promise<RetentionAnswer> {
      const { user_id, podcast_id, keep_last, delete_after_days, keep_saved } = ctx.params;
      if (keep_last === undefined && delete_after_days === undefined && keep_saved === undefined)
        throw new BadRequestError("Send keep_last, delete_after_days or keep_saved");
      // null: no limit, stored as 0 (a null field of a subscription means the user's default).
      const given = {
        ...(keep_last !== undefined ? { keep_last: keep_last ?? 0 } : {}),
        ...(delete_after_days !== undefined ? { delete_after_days: delete_after_days ?? 0 } : {}),
        ...(keep_saved !== undefined ? { keep_saved } : {}),
      };
      if (!podcast_id) {
        await setRetentionDefaults(ctx, { user_id, ...given });
        return retentionOf(ctx, user_id, null);
      }
      const sub: SubscriptionDoc = await this.subscriptionOf(user_id, podcast_id);
      const fields: Partial<SubscriptionDoc> = {
        ...(given.keep_last !== undefined ? { retention_keep_last: given.keep_last } : {}),
        ...(given.delete_after_days !== undefined ? { auto_download_delete_days: given.delete_after_days } : {}),
        ...(given.keep_saved !== undefined ? { retention_keep_saved: given.keep_saved } : {}),
      };
      await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: fields });
      return retentionOf(ctx, user_id, { ...sub, ...fields });
    },
  },
  /** DELETE /api/data/retention?user_id=&podcast_id=: the podcast's own settings go, the user's default applies. */
  clear_retention: {
    params: { user_id: id, podcast_id: id },
    response: RetentionAnswer,
    async handler(this: PodcastsThis, ctx: Ctx<{ user_id: number; podcast_id: number }>): Promise<RetentionAnswer> {
      const sub: SubscriptionDoc = await this.subscriptionOf(ctx.params.user_id, ctx.params.podcast_id);
      const cleared = { auto_download_delete_days: null, retention_keep_last: null, retention_keep_saved: null };
      await this.stores.subscriptions.updateMany({ _id: sub._id }, { $set: cleared });
      return retentionOf(ctx, ctx.params.user_id, { ...sub, ...cleared });
    },
  },

  // --- Internal (not in the route table) ---

  /** Every subscription's retention, those that delete anything (some days or a keep_last). */
  auto_delete_rules: {
    visibility: "public",
    async handler(this: PodcastsThis, ctx: Ctx): Promise<AutoDeleteRule[]> {
      const subs: SubscriptionDoc[] = await this.stores.subscriptions.find({ query: {} });
      if (!subs.length) return [];
      const defaults = await retentionDefaults(ctx, { user_ids: Array.from(new Set(subs.map((s) => s.user_id))) });
      return subs
        .filter((s) => defaults[s.user_id])
        .map((s) => merged(s.user_id, s, defaults[s.user_id]))
        .map((r) => ({ user_id: r.user_id, podcast_id: r.podcast_id!, days: r.delete_after_days, keep_last: r.keep_last, keep_saved: r.keep_saved }))
        .filter((r) => r.days > 0 || r.keep_last > 0);
    },
  },
};
