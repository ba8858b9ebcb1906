/**
 * A user's preferences as PinePods' web client reads and writes them: start page, default volume,
 * language (one of get_available_languages), how episodes are added to collections, and the default
 * retention of downloads: the days after which downloads of completed episodes are deleted, how many are kept
 * per podcast, whether saved ones are kept (the podcasts service's retention routes read and write them through
 * retention_defaults and set_retention_defaults; the downloads service's scheduled job applies them).
 */
import type { ServiceActionsSchema } from "moleculer";
import { config } from "../../shared/config";
import type { Ctx } from "../../shared/service-types";
import { DetailAnswer, SuccessMessageAnswer } from "../../shared/contracts/answers";
import {
  CollectionAddUiAnswer,
  DefaultVolumeAnswer,
  LanguageAnswer,
  LanguageUpdatedAnswer,
  type RetentionDefaults,
  StartPageAnswer,
} from "../../shared/contracts/users";
import { getter, LANGUAGES, setter, userId, userIdParam, UserDoc } from "./model";
import type { Settings, UsersMethods, UsersThis } from "./model";

/** The pages of the web client a user may start on. */
export const START_PAGES = ["home", "feed", "search", "queue", "saved", "downloads", "people_subs", "podcasts"];
const languageCode = { type: "enum", values: LANGUAGES.map((l) => l.code) };

export const preferencesActions: ServiceActionsSchema = {
  /** GET /api/data/startpage */
  get_startpage: getter("start_page", "StartPage", StartPageAnswer, true),
  /** POST /api/data/startpage?user_id=&startpage= (the web client sends both in the query) */
  set_startpage: {
    params: { user_id: userId, startpage: { type: "enum", values: START_PAGES, optional: true } },
    response: SuccessMessageAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number; startpage?: string }>): Promise<SuccessMessageAnswer> {
      const start_page = ctx.params.startpage ?? "home";
      await this.setFields(ctx.params.user_id, { start_page });
      return { success: true, message: `Start page set to ${start_page}` };
    },
  },
  /** POST /api/data/get_default_volume: 0-100. */
  get_default_volume: getter("default_volume", "default_volume", DefaultVolumeAnswer),
  set_default_volume: setter("default_volume", "volume", { type: "number", integer: true, min: 0, max: 100, convert: true }, DetailAnswer, {
    detail: "Default volume updated.",
  }),
  /** GET /api/data/get_user_language */
  get_user_language: {
    idempotent: true,
    params: userIdParam,
    response: LanguageAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number }>): Promise<LanguageAnswer> {
      return { language: this.languageOf(await this.getUser(ctx.params.user_id)) };
    },
  },
  /** PUT /api/data/update_user_language: a code get_available_languages lists, else 400. */
  update_user_language: {
    params: { user_id: userId, language: languageCode },
    response: LanguageUpdatedAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number; language: string }>): Promise<LanguageUpdatedAnswer> {
      await this.setFields(ctx.params.user_id, { language: ctx.params.language });
      return { success: true, language: ctx.params.language };
    },
  },
  get_collection_add_ui: getter("collection_add_ui", "collection_add_ui", CollectionAddUiAnswer, true),
  set_collection_add_ui: setter("collection_add_ui", "mode", { type: "enum", values: ["modal", "submenu"] }, DetailAnswer, {
    detail: "Collection add mode updated",
  }),
  /** POST /api/data/user/set_auto_download_delete_days: 0 keeps downloads. */
  set_auto_download_delete_days: setter(
    "auto_download_delete_days",
    "days",
    { type: "number", integer: true, min: 0, max: 3650, convert: true },
    DetailAnswer,
    { detail: "Default auto-delete downloads setting updated." },
  ),

  // --- Internal (not in the route table) ---

  /** The default retention of these users (gone users are left out). */
  retention_defaults: {
    visibility: "public",
    params: { user_ids: { type: "array", items: "number", max: 100_000 } },
    async handler(this: UsersThis, ctx: Ctx<{ user_ids: number[] }>): Promise<Record<number, RetentionDefaults>> {
      const users: UserDoc[] = await this.adapter.find({ query: { _id: { $in: ctx.params.user_ids } } });
      return Object.fromEntries(users.map((u) => [u._id, retentionOf(this.settingsOf(u))]));
    },
  },
  /** Writes the fields given (the podcasts service validated them for its route). */
  set_retention_defaults: {
    visibility: "public",
    params: {
      user_id: userId,
      delete_after_days: { type: "number", integer: true, min: 0, max: 3650, optional: true },
      keep_last: { type: "number", integer: true, min: 0, max: 100_000, optional: true },
      keep_saved: { type: "boolean", optional: true },
    },
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number } & Partial<RetentionDefaults>>): Promise<RetentionDefaults> {
      const { user_id, delete_after_days, keep_last, keep_saved } = ctx.params;
      const fields: Partial<UserDoc> = { auto_download_delete_days: delete_after_days, retention_keep_last: keep_last, retention_keep_saved: keep_saved };
      await this.setFields(user_id, Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)));
      return retentionOf(this.settingsOf(await this.getUser(user_id)));
    },
  },
};

/** The retention fields of a user's settings (delete_after_days is the field user/set_auto_download_delete_days writes). */
const retentionOf = (s: Settings): RetentionDefaults => ({
  delete_after_days: s.auto_download_delete_days,
  keep_last: s.retention_keep_last,
  keep_saved: s.retention_keep_saved,
});

export const preferencesMethods: Pick<UsersMethods, "languageOf"> = {
  languageOf(this: UsersThis, user: UserDoc): string {
    return user.language ?? config.defaultLanguage;
  },
};
