/**
 * Profile, per-user settings and custom themes of the users service.
 */
import type { ServiceActionsSchema } from "moleculer";
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from "../../shared/errors";
import { config } from "../../shared/config";
import { passwordToStoredHash, verifyPassword } from "../../shared/secrets";
import type { Ctx } from "../../shared/service-types";
import type { PlaybackSettings } from "../../shared/contracts/podcasts";
import { playbackSettings, setCoverPreference } from "../../shared/contracts/podcasts";
import { userRightsChanged } from "../../shared/contracts/users";
import type { Static } from "../../shared/contracts/answers";
import {
  AutoCompleteSecondsAnswer,
  CoverPreferenceAnswer,
  CreateCustomThemeAnswer,
  CustomTheme,
  CustomThemesAnswer,
  DefaultLanguageAnswer,
  LanguagesAnswer,
  PlaybackSpeedAnswer,
  SetupTimeInfoAnswer,
  SyncServerAnswer,
  ThemeAnswer,
  TimeInfoAnswer,
  type ListeningSettings,
  type UserEvent,
} from "../../shared/contracts/users";
import { DetailAnswer, MessageAnswer, SuccessMessageAnswer } from "../../shared/contracts/answers";
import {
  canonicalTimezone,
  CLIENT_THEMES,
  colorParam,
  CustomThemeDoc,
  DATE_FORMAT_ALIASES,
  DATE_FORMATS,
  getter,
  LANGUAGES,
  setter,
  THEME_COLOR_FIELDS,
  userId,
  userIdParam,
  UserDoc,
  usernameParam,
} from "./model";
import type { ThemeColorField, UsersThis } from "./model";

/** A stored custom theme as clients read it. */
const customTheme = (d: CustomThemeDoc) => ({ themeid: d._id, name: d.name, ...d.colors, created_at: new Date(d.created_at).toISOString() }) as CustomTheme;

export const settingsActions: ServiceActionsSchema = {
  set_fullname: setter("fullname", "new_name", { type: "string", trim: true, min: 1, max: 255 }, DetailAnswer, { detail: "Fullname updated" }),
  /** Non-admins prove the current password (clear text, as in get_key); admins may reset anyone's. */
  set_password: {
    params: {
      user_id: userId,
      hash_pw: { type: "string", min: 1, max: 1024 },
      current_password: { type: "string", max: 1024, optional: true },
      old_password: { type: "string", max: 1024, optional: true },
    },
    response: DetailAnswer,
    async handler(
      this: UsersThis,
      ctx: Ctx<{ user_id: number; hash_pw: string; current_password?: string; old_password?: string }>,
    ): Promise<Static<typeof DetailAnswer>> {
      const user: UserDoc = await this.getUser(ctx.params.user_id);
      if (!ctx.meta.user?.isAdmin) {
        const current = ctx.params.current_password ?? ctx.params.old_password;
        if (!current) throw new BadRequestError("current_password is required to change your password");
        if (!(await verifyPassword(user.hashed_pw, current))) throw new ForbiddenError("The current password is wrong");
      }
      await this.setFields(user._id, { hashed_pw: await passwordToStoredHash(ctx.params.hash_pw) });
      this.logger.info("password changed", { user_id: user._id, by: ctx.meta.user?.id });
      await this.credentialsChanged(user._id);
      return { detail: "Password updated" };
    },
  },
  set_email: {
    params: { user_id: userId, new_email: { type: "email", max: 255 } },
    response: DetailAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number; new_email: string }>): Promise<Static<typeof DetailAnswer>> {
      await this.setUniqueField(ctx.params.user_id, "email", ctx.params.new_email.toLowerCase());
      return { detail: "Email updated" };
    },
  },
  set_username: {
    params: { user_id: userId, new_username: usernameParam },
    response: DetailAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number; new_username: string }>): Promise<Static<typeof DetailAnswer>> {
      await this.setUniqueField(ctx.params.user_id, "username", ctx.params.new_username.toLowerCase());
      // Cached key lookups carry the username (the sync routes' {username}).
      const event: UserEvent = { user_id: ctx.params.user_id };
      await userRightsChanged.broadcast(this.broker, event);
      return { detail: "Username updated" };
    },
  },

  // --- Settings ---

  get_theme: getter("theme", "theme", ThemeAnswer, true),
  set_theme: setter("theme", "new_theme", { type: "enum", values: ["light", "dark", "auto", ...CLIENT_THEMES] }, MessageAnswer, { message: "Theme updated" }),
  /** First-login set-up: time settings, and the account leaves its first-login state. */
  setup_time_info: {
    params: {
      user_id: userId,
      timezone: { type: "string", trim: true, min: 1, max: 64 },
      hour_pref: { type: "enum", values: [12, 24] },
      date_format: { type: "string", trim: true, min: 1, max: 16 },
    },
    response: SetupTimeInfoAnswer,
    async handler(
      this: UsersThis,
      ctx: Ctx<{ user_id: number; timezone: string; hour_pref: 12 | 24; date_format: string }>,
    ): Promise<Static<typeof SetupTimeInfoAnswer>> {
      const p = ctx.params;
      const format = p.date_format.toUpperCase();
      const dateFormat = DATE_FORMATS.includes(format) ? format : DATE_FORMAT_ALIASES[format];
      if (!dateFormat) throw new BadRequestError(`date_format must be one of ${DATE_FORMATS.join(", ")}`);
      await this.setFields(p.user_id, { timezone: canonicalTimezone(p.timezone), hour_pref: p.hour_pref, date_format: dateFormat, first_login: false });
      return { success: true };
    },
  },
  update_timezone: {
    idempotent: true,
    params: { user_id: userId, timezone: { type: "string", trim: true, min: 1, max: 64 } },
    response: SuccessMessageAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number; timezone: string }>): Promise<Static<typeof SuccessMessageAnswer>> {
      await this.setFields(ctx.params.user_id, { timezone: canonicalTimezone(ctx.params.timezone) });
      return { success: true, message: "Timezone updated" };
    },
  },
  /** The documented formats, or a client's format code (DATE_FORMAT_ALIASES) stored as its documented format. */
  update_date_format: {
    params: { user_id: userId, date_format: { type: "enum", values: [...DATE_FORMATS, ...Object.keys(DATE_FORMAT_ALIASES)] } },
    response: SuccessMessageAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number; date_format: string }>): Promise<Static<typeof SuccessMessageAnswer>> {
      const format: string = ctx.params.date_format;
      await this.setFields(ctx.params.user_id, { date_format: DATE_FORMAT_ALIASES[format] ?? format });
      return { success: true, message: "Date format updated" };
    },
  },
  update_time_format: setter("hour_pref", "hour_pref", { type: "enum", values: [12, 24] }, SuccessMessageAnswer, {
    success: true,
    message: "Time format updated",
  }),
  get_time_info: {
    idempotent: true,
    params: userIdParam,
    response: TimeInfoAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof TimeInfoAnswer>> {
      const s = this.settingsOf(await this.getUser(ctx.params.user_id));
      return { timezone: s.timezone, date_format: s.date_format, hour_pref: s.hour_pref };
    },
  },
  get_auto_complete_seconds: getter("auto_complete_seconds", "auto_complete_seconds", AutoCompleteSecondsAnswer, true),
  update_auto_complete_seconds: setter(
    "auto_complete_seconds",
    "seconds",
    { type: "number", integer: true, min: 0, max: 300, convert: true },
    SuccessMessageAnswer,
    { success: true, message: "Auto-complete seconds updated" },
  ),
  set_playback_speed: setter("playback_speed", "playback_speed", { type: "number", min: 0.5, max: 3, convert: true }, DetailAnswer, {
    detail: "Default playback speed updated",
  }),
  /** The speed a player uses: with podcast_id, that podcast's own speed (404 unless subscribed), else the user's default. */
  get_playback_speed: {
    idempotent: true,
    params: { user_id: userId, podcast_id: { type: "number", integer: true, positive: true, convert: true, optional: true, nullable: true } },
    response: PlaybackSpeedAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number; podcast_id?: number | null }>): Promise<Static<typeof PlaybackSpeedAnswer>> {
      const user: UserDoc = await this.getUser(ctx.params.user_id);
      if (ctx.params.podcast_id != null) {
        const own: PlaybackSettings = await playbackSettings(ctx, { user_id: user._id, podcast_id: ctx.params.podcast_id });
        if (own.playback_speed !== null) return { playback_speed: own.playback_speed };
      }
      return { playback_speed: this.settingsOf(user).playback_speed };
    },
  },
  get_podcast_cover_preference: {
    idempotent: true,
    params: { user_id: { ...userId, optional: true } },
    response: CoverPreferenceAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id?: number }>): Promise<Static<typeof CoverPreferenceAnswer>> {
      const user = await this.getUser(ctx.params.user_id ?? ctx.meta.user!.id);
      return { use_podcast_covers: this.settingsOf(user).use_podcast_covers };
    },
  },
  set_global_podcast_cover_preference: {
    params: {
      user_id: userId,
      use_podcast_covers: { type: "boolean", convert: true },
      podcast_id: { type: "number", integer: true, positive: true, convert: true, optional: true, nullable: true },
    },
    response: DetailAnswer,
    async handler(
      this: UsersThis,
      ctx: Ctx<{ user_id: number; use_podcast_covers: boolean; podcast_id?: number | null }>,
    ): Promise<Static<typeof DetailAnswer>> {
      // With a podcast_id the preference is that podcast's own, kept on the subscription by its owner.
      if (ctx.params.podcast_id != null) {
        await setCoverPreference(ctx, { user_id: ctx.params.user_id, podcast_id: ctx.params.podcast_id, use_podcast_covers: ctx.params.use_podcast_covers });
        return { detail: "Podcast cover preference updated for this podcast" };
      }
      await this.setFields(ctx.params.user_id, { use_podcast_covers: ctx.params.use_podcast_covers });
      return { detail: "Podcast cover preference updated" };
    },
  },
  /** GET /api/data/user/sync_server/{user_id}: the user's own switch of the sync server, and the operator's. */
  get_sync_server: {
    idempotent: true,
    params: userIdParam,
    response: SyncServerAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number }>): Promise<SyncServerAnswer> {
      const user: UserDoc = await this.getUser(ctx.params.user_id);
      return { sync_server: user.sync_server !== false, server_enabled: config.syncServerEnabled };
    },
  },
  /** PUT /api/data/user/sync_server {user_id, sync_server}: off, the sync routes refuse this account's credentials (403). */
  set_sync_server: {
    params: { user_id: userId, sync_server: { type: "boolean", convert: true } },
    response: SyncServerAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number; sync_server: boolean }>): Promise<SyncServerAnswer> {
      await this.setFields(ctx.params.user_id, { sync_server: ctx.params.sync_server });
      // Cached key lookups carry the switch; every gateway and auth node drops them.
      const event: UserEvent = { user_id: ctx.params.user_id };
      await userRightsChanged.broadcast(this.broker, event);
      return { sync_server: ctx.params.sync_server, server_enabled: config.syncServerEnabled };
    },
  },
  get_available_languages: {
    idempotent: true,
    params: {},
    response: LanguagesAnswer,
    handler(this: UsersThis): Static<typeof LanguagesAnswer> {
      return { languages: LANGUAGES };
    },
  },
  get_server_default_language: {
    idempotent: true,
    params: {},
    response: DefaultLanguageAnswer,
    handler(this: UsersThis): Static<typeof DefaultLanguageAnswer> {
      return { default_language: config.defaultLanguage };
    },
  },

  // --- Custom themes ---

  create_custom_theme: {
    params: { user_id: userId, name: { type: "string", trim: true, min: 1, max: 100 }, ...Object.fromEntries(THEME_COLOR_FIELDS.map((f) => [f, colorParam])) },

    response: CreateCustomThemeAnswer,
    async handler(
      this: UsersThis,
      ctx: Ctx<{ user_id: number; name: string } & Record<ThemeColorField, string>>,
    ): Promise<Static<typeof CreateCustomThemeAnswer>> {
      await this.getUser(ctx.params.user_id);
      // The web client reads them all at once (get_custom_themes): the list stays short.
      if ((await this.stores.custom_themes.count({ query: { user_id: ctx.params.user_id } })) >= config.maxCustomThemes) {
        throw new ConflictError(`This account has ${config.maxCustomThemes} custom themes, the most it may hold: delete one first`);
      }
      const doc: CustomThemeDoc = {
        _id: await this.nextId("custom_themes"),
        user_id: ctx.params.user_id,
        name: ctx.params.name,
        colors: Object.fromEntries(THEME_COLOR_FIELDS.map((f) => [f, ctx.params[f]])),
        created_at: new Date(),
      };
      await this.stores.custom_themes.insert(doc);
      return { message: "Custom theme created", theme: customTheme(doc) };
    },
  },
  get_custom_themes: {
    idempotent: true,
    params: userIdParam,
    response: CustomThemesAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof CustomThemesAnswer>> {
      const docs: CustomThemeDoc[] = await this.stores.custom_themes.find({ query: { user_id: ctx.params.user_id }, sort: ["_id"] });
      return { themes: docs.map(customTheme) };
    },
  },
  delete_custom_theme: {
    params: { user_id: userId, theme_id: { type: "number", integer: true, positive: true, convert: true } },
    response: MessageAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number; theme_id: number }>): Promise<Static<typeof MessageAnswer>> {
      const removed = await this.stores.custom_themes.removeMany({ _id: ctx.params.theme_id, user_id: ctx.params.user_id });
      if (!removed) throw new NotFoundError("Custom theme not found");
      return { message: "Custom theme deleted" };
    },
  },

  // --- Internal actions (not in the route table) ---

  /** What shapes a user's listening (episodes and podcasts services): auto-complete, timezone, default speed; and the account's age. */
  listening_settings: {
    visibility: "public",
    params: userIdParam,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number }>): Promise<ListeningSettings> {
      const user: UserDoc = await this.getUser(ctx.params.user_id);
      const { auto_complete_seconds, timezone, playback_speed } = this.settingsOf(user);
      return { auto_complete_seconds, timezone, playback_speed, created: user.created_at ? new Date(user.created_at).toISOString() : null };
    },
  },
};
