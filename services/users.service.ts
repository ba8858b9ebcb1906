/**
 * Accounts: the users collection (profile, settings, MFA secrets), custom themes, password-reset codes
 * and the server-wide settings (self-service, guest). Passwords are Argon2id hashes (shared/secrets.ts);
 * the auth service asks this one to verify them and to check MFA codes.
 */
import crypto from "crypto";
import type { Context, ServiceSchema } from "moleculer";
import { generateSecret, generateURI, verify as verifyTotp } from "otplib";
import { DbMixin, isDuplicateKeyError } from "../shared/db.mixin";
import { config } from "../shared/config";
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from "../shared/errors";
import { passwordToStoredHash, sha256Hex, verifyPassword } from "../shared/secrets";
import type { AuthUser, GatewayMeta, UserAuthInfo, UserEvent, VerifiedLogin } from "../shared/types";
import type { PlaybackSettings } from "../shared/contracts/podcasts";
import type { ListeningSettings } from "../shared/contracts/users";

export type Theme = "light" | "dark" | "auto";

/** A stored account. Settings written before a field existed read as SETTING_DEFAULTS. */
export interface UserDoc {
  _id: number;
  username: string;
  email: string;
  fullname: string;
  hashed_pw: string;
  isadmin: boolean;
  first_login: boolean;
  /** Active TOTP secret (base32); never returned by any operation. */
  mfa_secret: string | null;
  /** Secret handed out by generate_mfa_secret, active only after verify_temp_mfa. */
  mfa_pending_secret?: string | null;
  /** Time step of the last code accepted for the active secret: that code and older ones are spent. */
  mfa_last_step?: number | null;
  theme?: Theme;
  timezone?: string;
  hour_pref?: 12 | 24;
  date_format?: string;
  auto_complete_seconds?: number;
  playback_speed?: number;
  use_podcast_covers?: boolean;
  created_at: Date;
}

interface ServerSettings {
  _id: "server";
  self_service: boolean;
  guest: boolean;
}

/** A user's colour theme; every colour field of the spec's custom theme record is required. */
interface CustomThemeDoc {
  _id: number;
  user_id: number;
  name: string;
  colors: Record<string, string>;
  created_at: Date;
}

/** One pending password reset per user: only the SHA-256 of the mailed code is kept. */
interface PasswordResetDoc {
  _id: number;
  user_id: number;
  code_hash: string;
  attempts: number;
  created_at: Date;
  /** The TTL index drops the record at this time. */
  expires_at: Date;
}

const SETTING_DEFAULTS = {
  theme: "auto" as Theme,
  timezone: "UTC",
  hour_pref: 24 as 12 | 24,
  date_format: "YYYY-MM-DD",
  auto_complete_seconds: 0,
  playback_speed: 1.0,
  use_podcast_covers: false,
};

const DATE_FORMATS = ["MM/DD/YYYY", "DD/MM/YYYY", "YYYY-MM-DD"];
/** First-login set-up also sends the pattern-style names of the same three formats. */
const DATE_FORMAT_ALIASES: Record<string, string> = { MDY: "MM/DD/YYYY", DMY: "DD/MM/YYYY", YMD: "YYYY-MM-DD", ISO: "YYYY-MM-DD" };

/** Languages clients may offer; GET get_available_languages lists them, DEFAULT_LANGUAGE picks one. */
const LANGUAGES = [
  { code: "en", name: "English" },
  { code: "de", name: "Deutsch" },
  { code: "es", name: "Español" },
  { code: "fr", name: "Français" },
  { code: "it", name: "Italiano" },
  { code: "nl", name: "Nederlands" },
  { code: "pl", name: "Polski" },
  { code: "pt", name: "Português" },
  { code: "sv", name: "Svenska" },
  { code: "ja", name: "日本語" },
  { code: "zh", name: "中文" },
];

const THEME_COLOR_FIELDS = [
  "background_color", "button_color", "container_button_color", "button_text_color", "text_color", "text_secondary_color",
  "border_color", "accent_color", "prog_bar_color", "error_color", "bonus_color", "secondary_background",
  "container_background", "standout_color", "hover_color", "link_color", "thumb_color", "unfilled_color", "check_box_color",
];
const CSS_COLOR = /^(#[0-9a-fA-F]{3,4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|(rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\))$/;
const colorParam = { type: "string", trim: true, max: 64, pattern: CSS_COLOR, messages: { stringPattern: "The '{field}' field must be a CSS colour (#hex, rgb(), hsl())" } };

/** TOTP as every authenticator app does it: SHA-1, 6 digits, 30 s steps; one step of clock skew either way. */
const TOTP = { algorithm: "sha1", digits: 6, period: 30 } as const;
const TOTP_SKEW_SECONDS = 30;

const RESET_CODE_MINUTES = 15;
const RESET_MAX_ATTEMPTS = 5;
/** At most one reset mail per account in this time, so the open route cannot flood a mailbox. */
const RESET_MAIL_INTERVAL_MS = 60_000;
// Unambiguous letters and digits (no 0/O, 1/I): 10 of them are 50 bits, read from a mail by a person.
const RESET_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

const usernameParam = { type: "string", trim: true, min: 1, max: 64, pattern: /^[^\s:]+$/, messages: { stringPattern: "The '{field}' may not contain spaces or ':'" } };
const userFields = {
  fullname: { type: "string", trim: true, min: 1, max: 255 },
  username: usernameParam,
  email: { type: "email", max: 255 },
};
const newUserParams = { ...userFields, hash_pw: { type: "string", min: 1, max: 1024 } };
const userId = { type: "number", integer: true, positive: true, convert: true };
const userIdParam = { user_id: userId };
const mfaCodeParams = { user_id: userId, mfa_code: { type: "string", convert: true, trim: true, min: 1, max: 16 } };

/** IANA names only ("Europe/Berlin", "UTC"); offsets such as "+01:00" are refused. Returns the canonical name. */
function canonicalTimezone(tz: string): string {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) throw new BadRequestError(`Unknown timezone '${tz}': use an IANA name such as Europe/Berlin`);
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    throw new BadRequestError(`Unknown timezone '${tz}': use an IANA name such as Europe/Berlin`);
  }
}

/** A plain setting setter: one validated param stored in one field of the user, a fixed answer. */
function setter(field: keyof UserDoc, param: string, rule: object, answer: object) {
  return {
    params: { user_id: userId, [param]: rule },
    async handler(this: any, ctx: Context<any>) {
      await this.setFields(ctx.params.user_id, { [field]: ctx.params[param] });
      return answer;
    },
  };
}

const UsersService: ServiceSchema = {
  name: "users",
  mixins: [
    DbMixin(
      { name: "users", indexes: [{ fields: { username: 1 }, unique: true }, { fields: { email: 1 }, unique: true }] },
      [
        { name: "server_settings" },
        { name: "custom_themes", indexes: [{ fields: { user_id: 1 } }] },
        { name: "password_resets", indexes: [{ fields: { user_id: 1 } }, { fields: { expires_at: 1 }, expireAfterSeconds: 0 }] },
      ],
    ),
  ],
  actions: {
    create_first: {
      params: { ...userFields, password: { type: "string", min: 1, max: 1024 } },
      async handler(this: any, ctx: Context<any>) {
        if (await this.adminExists()) throw new ConflictError("An admin user already exists");
        const user = await this.createUser(ctx.params, ctx.params.password, true);
        return { message: "Admin user created successfully", user_id: user._id };
      },
    },
    self_service_status: {
      params: {},
      async handler(this: any) {
        const settings = await this.serverSettings();
        return { status: settings.self_service, first_admin_created: await this.adminExists() };
      },
    },
    /** Registration: open when self-service is on; otherwise only an admin may add users. */
    add_login_user: {
      params: newUserParams,
      async handler(this: any, ctx: Context<any, { user?: AuthUser }>) {
        const settings = await this.serverSettings();
        if (!settings.self_service && !ctx.meta.user?.isAdmin) throw new ForbiddenError("Self-service registration is disabled");
        const user = await this.createUser(ctx.params, ctx.params.hash_pw, false);
        return { detail: "User added successfully", user_id: user._id };
      },
    },
    add_user: {
      params: newUserParams,
      async handler(this: any, ctx: Context<any>) {
        const user = await this.createUser(ctx.params, ctx.params.hash_pw, false);
        return { detail: "User added successfully", user_id: user._id };
      },
    },
    user_details_id: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        const u: UserDoc = await this.getUser(ctx.params.user_id);
        return { UserID: u._id, Fullname: u.fullname, Username: u.username, Email: u.email, Hashed_PW: null, Salt: null };
      },
    },
    my_user_info: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        const u: UserDoc = await this.getUser(ctx.params.user_id);
        return { userid: u._id, fullname: u.fullname, username: u.username, email: u.email, isadmin: u.isadmin ? 1 : 0 };
      },
    },
    first_login_done: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        const u: UserDoc = await this.getUser(ctx.params.user_id);
        return { FirstLogin: u.first_login };
      },
    },
    user_admin_check: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        const u: UserDoc = await this.getUser(ctx.params.user_id);
        return { is_admin: u.isadmin };
      },
    },
    enable_disable_self_service: {
      params: {},
      async handler(this: any) {
        const status = await this.toggleSetting("self_service");
        return { success: true, status, detail: `Self-service registration ${status ? "enabled" : "disabled"}` };
      },
    },
    enable_disable_guest: {
      params: {},
      async handler(this: any) {
        const status = await this.toggleSetting("guest");
        return { success: true, status, detail: `Guest access ${status ? "enabled" : "disabled"}` };
      },
    },
    admin_self_service_status: {
      params: {},
      async handler(this: any) {
        const settings = await this.serverSettings();
        return { status: settings.self_service };
      },
    },

    // --- Profile ---

    set_fullname: setter("fullname", "new_name", { type: "string", trim: true, min: 1, max: 255 }, { detail: "Fullname updated" }),
    /** Non-admins prove the current password (clear text, as in get_key); admins may reset anyone's. */
    set_password: {
      params: {
        user_id: userId,
        hash_pw: { type: "string", min: 1, max: 1024 },
        current_password: { type: "string", max: 1024, optional: true },
        old_password: { type: "string", max: 1024, optional: true },
      },
      async handler(this: any, ctx: Context<any, GatewayMeta>) {
        const user: UserDoc = await this.getUser(ctx.params.user_id);
        if (!ctx.meta.user?.isAdmin) {
          const current = ctx.params.current_password ?? ctx.params.old_password;
          if (!current) throw new BadRequestError("current_password is required to change your password");
          if (!(await verifyPassword(user.hashed_pw, current))) throw new ForbiddenError("The current password is wrong");
        }
        await this.setFields(user._id, { hashed_pw: await passwordToStoredHash(ctx.params.hash_pw) });
        this.logger.info("password changed", { user_id: user._id, by: ctx.meta.user?.id });
        return { detail: "Password updated" };
      },
    },
    set_email: {
      params: { user_id: userId, new_email: { type: "email", max: 255 } },
      async handler(this: any, ctx: Context<any>) {
        await this.setUniqueField(ctx.params.user_id, "email", ctx.params.new_email.toLowerCase());
        return { detail: "Email updated" };
      },
    },
    set_username: {
      params: { user_id: userId, new_username: usernameParam },
      async handler(this: any, ctx: Context<any>) {
        await this.setUniqueField(ctx.params.user_id, "username", ctx.params.new_username.toLowerCase());
        return { detail: "Username updated" };
      },
    },

    // --- Settings ---

    get_theme: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        return { theme: this.settingsOf(await this.getUser(ctx.params.user_id)).theme };
      },
    },
    set_theme: setter("theme", "new_theme", { type: "enum", values: ["light", "dark", "auto"] }, { message: "Theme updated" }),
    /** First-login set-up: time settings, and the account leaves its first-login state. */
    setup_time_info: {
      params: {
        user_id: userId,
        timezone: { type: "string", trim: true, min: 1, max: 64 },
        hour_pref: { type: "enum", values: [12, 24] },
        date_format: { type: "string", trim: true, min: 1, max: 16 },
      },
      async handler(this: any, ctx: Context<any>) {
        const p = ctx.params;
        const format = p.date_format.toUpperCase();
        const dateFormat = DATE_FORMATS.includes(format) ? format : DATE_FORMAT_ALIASES[format];
        if (!dateFormat) throw new BadRequestError(`date_format must be one of ${DATE_FORMATS.join(", ")}`);
        await this.setFields(p.user_id, { timezone: canonicalTimezone(p.timezone), hour_pref: p.hour_pref, date_format: dateFormat, first_login: false });
        return { success: true };
      },
    },
    update_timezone: {
      params: { user_id: userId, timezone: { type: "string", trim: true, min: 1, max: 64 } },
      async handler(this: any, ctx: Context<any>) {
        await this.setFields(ctx.params.user_id, { timezone: canonicalTimezone(ctx.params.timezone) });
        return { success: true, message: "Timezone updated" };
      },
    },
    update_date_format: setter("date_format", "date_format", { type: "enum", values: DATE_FORMATS }, { success: true, message: "Date format updated" }),
    update_time_format: setter("hour_pref", "hour_pref", { type: "enum", values: [12, 24] }, { success: true, message: "Time format updated" }),
    get_time_info: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        const s = this.settingsOf(await this.getUser(ctx.params.user_id));
        return { timezone: s.timezone, date_format: s.date_format, hour_pref: s.hour_pref };
      },
    },
    get_auto_complete_seconds: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        return { auto_complete_seconds: this.settingsOf(await this.getUser(ctx.params.user_id)).auto_complete_seconds };
      },
    },
    update_auto_complete_seconds: setter("auto_complete_seconds", "seconds", { type: "number", integer: true, min: 0, max: 300, convert: true }, { success: true, message: "Auto-complete seconds updated" }),
    set_playback_speed: setter("playback_speed", "playback_speed", { type: "number", min: 0.5, max: 3, convert: true }, { detail: "Default playback speed updated" }),
    /** The speed a player uses: with podcast_id, that podcast's own speed (404 unless subscribed), else the user's default. */
    get_playback_speed: {
      params: { user_id: userId, podcast_id: { type: "number", integer: true, positive: true, convert: true, optional: true, nullable: true } },
      async handler(this: any, ctx: Context<any>) {
        const user: UserDoc = await this.getUser(ctx.params.user_id);
        if (ctx.params.podcast_id != null) {
          const own: PlaybackSettings = await ctx.call("podcasts.playback_settings", { user_id: user._id, podcast_id: ctx.params.podcast_id });
          if (own.playback_speed !== null) return { playback_speed: own.playback_speed };
        }
        return { playback_speed: this.settingsOf(user).playback_speed };
      },
    },
    get_podcast_cover_preference: {
      params: { user_id: { ...userId, optional: true } },
      async handler(this: any, ctx: Context<any, GatewayMeta>) {
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
      async handler(this: any, ctx: Context<any>) {
        // With a podcast_id the preference is that podcast's own, kept on the subscription by its owner.
        if (ctx.params.podcast_id != null) {
          await ctx.call("podcasts.set_cover_preference", { user_id: ctx.params.user_id, podcast_id: ctx.params.podcast_id, use_podcast_covers: ctx.params.use_podcast_covers });
          return { detail: "Podcast cover preference updated for this podcast" };
        }
        await this.setFields(ctx.params.user_id, { use_podcast_covers: ctx.params.use_podcast_covers });
        return { detail: "Podcast cover preference updated" };
      },
    },
    get_available_languages: {
      params: {},
      handler() {
        return { languages: LANGUAGES };
      },
    },
    get_server_default_language: {
      params: {},
      handler() {
        return { default_language: config.defaultLanguage };
      },
    },

    // --- Custom themes ---

    create_custom_theme: {
      params: { user_id: userId, name: { type: "string", trim: true, min: 1, max: 100 }, ...Object.fromEntries(THEME_COLOR_FIELDS.map((f) => [f, colorParam])) },
      async handler(this: any, ctx: Context<any>) {
        await this.getUser(ctx.params.user_id);
        const doc: CustomThemeDoc = {
          _id: await this.nextId("custom_themes"),
          user_id: ctx.params.user_id,
          name: ctx.params.name,
          colors: Object.fromEntries(THEME_COLOR_FIELDS.map((f) => [f, ctx.params[f]])),
          created_at: new Date(),
        };
        await this.stores.custom_themes.insert(doc);
        return { message: "Custom theme created", theme_id: doc._id };
      },
    },
    get_custom_themes: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        const docs: CustomThemeDoc[] = await this.stores.custom_themes.find({ query: { user_id: ctx.params.user_id }, sort: ["_id"] });
        return docs.map((d) => ({ theme_id: d._id, name: d.name, ...d.colors, created_at: new Date(d.created_at).toISOString() }));
      },
    },
    delete_custom_theme: {
      params: { user_id: userId, theme_id: { type: "number", integer: true, positive: true, convert: true } },
      async handler(this: any, ctx: Context<any>) {
        const removed = await this.stores.custom_themes.removeMany({ _id: ctx.params.theme_id, user_id: ctx.params.user_id });
        if (!removed) throw new NotFoundError("Custom theme not found");
        return { message: "Custom theme deleted" };
      },
    },

    // --- Administration (admin routes) ---

    set_isadmin: {
      params: { user_id: userId, isadmin: { type: "boolean", convert: true } },
      async handler(this: any, ctx: Context<any, GatewayMeta>) {
        const user: UserDoc = await this.getUser(ctx.params.user_id);
        if (user.isadmin && !ctx.params.isadmin && (await this.adminCount()) <= 1) throw new ConflictError("The last admin cannot lose admin rights");
        await this.setFields(user._id, { isadmin: ctx.params.isadmin });
        // Cached key lookups carry the admin flag; every auth node drops them.
        const event: UserEvent = { user_id: user._id };
        await this.broker.broadcast("user.rights_changed", event);
        this.logger.info("admin flag changed", { user_id: user._id, isadmin: ctx.params.isadmin, by: ctx.meta.user?.id });
        return { detail: "Admin status updated" };
      },
    },
    /** Removes the account here; every other service removes its data on the user.removed event. */
    delete_user: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any, GatewayMeta>) {
        const user: UserDoc = await this.getUser(ctx.params.user_id);
        if (user.isadmin && (await this.adminCount()) <= 1) throw new ConflictError("The last admin cannot be deleted");
        await this.adapter.removeMany({ _id: user._id });
        await this.stores.custom_themes.removeMany({ user_id: user._id });
        await this.stores.password_resets.removeMany({ user_id: user._id });
        const event: UserEvent = { user_id: user._id };
        // Every auth node drops cached key lookups at once (the user no longer resolves); then each service deletes its data.
        await this.broker.broadcast("user.rights_changed", event);
        await ctx.emit("user.removed", event);
        this.logger.info("user removed", { user_id: user._id, by: ctx.meta.user?.id });
        return { detail: "User deleted" };
      },
    },
    final_admin: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        const user: UserDoc = await this.getUser(ctx.params.user_id);
        return { final_admin: !!user.isadmin && (await this.adminCount()) === 1 };
      },
    },

    // --- MFA (TOTP) ---

    /** Starts set-up: a new pending secret, active only once verify_temp_mfa sees a valid code from it. */
    generate_mfa_secret: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        const user: UserDoc = await this.getUser(ctx.params.user_id);
        const secret = generateSecret();
        await this.setFields(user._id, { mfa_pending_secret: secret });
        const uri = generateURI({ issuer: config.serviceName, label: user.username, secret, ...TOTP });
        return { secret, otpauth_uri: uri };
      },
    },
    verify_temp_mfa: {
      params: mfaCodeParams,
      async handler(this: any, ctx: Context<any>) {
        const user: UserDoc = await this.getUser(ctx.params.user_id);
        if (!user.mfa_pending_secret) throw new BadRequestError("No MFA set-up in progress: call generate_mfa_secret first");
        const verified = await this.totpMatches(user.mfa_pending_secret, ctx.params.mfa_code);
        if (verified) {
          await this.setFields(user._id, { mfa_secret: user.mfa_pending_secret, mfa_pending_secret: null, mfa_last_step: null });
          this.logger.info("MFA enabled", { user_id: user._id });
        }
        return { verified };
      },
    },
    verify_mfa: {
      params: mfaCodeParams,
      async handler(this: any, ctx: Context<any>) {
        const user: UserDoc = await this.getUser(ctx.params.user_id);
        if (!user.mfa_secret) throw new BadRequestError("MFA is not enabled for this user");
        return { verified: await this.acceptActiveCode(user, ctx.params.mfa_code) };
      },
    },
    check_mfa_enabled: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        return { mfa_enabled: !!(await this.getUser(ctx.params.user_id)).mfa_secret };
      },
    },
    /** No body in the spec: the caller's own MFA, or user_id's (own, or any for an admin). */
    delete_mfa: {
      params: { user_id: { ...userId, optional: true } },
      async handler(this: any, ctx: Context<any, GatewayMeta>) {
        const user: UserDoc = await this.getUser(ctx.params.user_id ?? ctx.meta.user!.id);
        await this.setFields(user._id, { mfa_secret: null, mfa_pending_secret: null });
        this.logger.info("MFA disabled", { user_id: user._id, by: ctx.meta.user?.id });
        return { detail: "MFA disabled" };
      },
    },

    // --- Password reset by mail (open routes) ---

    /** Same answer whether or not the account exists; the mail goes out in the background (no timing tell). */
    reset_password_create_code: {
      params: { email: { type: "email", max: 255 }, username: { type: "string", trim: true, min: 1, max: 64 } },
      async handler(this: any, ctx: Context<any>) {
        const user: UserDoc | null = await this.adapter.findOne({ email: ctx.params.email.toLowerCase(), username: ctx.params.username.toLowerCase() });
        if (user) {
          this.sendResetCode(user).catch((err: any) => this.logger.warn("reset mail not sent", { user_id: user._id, error: err?.message }));
        }
        return { code_created: true };
      },
    },
    verify_and_reset_password: {
      params: {
        reset_code: { type: "string", trim: true, min: 1, max: 64 },
        email: { type: "email", max: 255 },
        new_password: { type: "string", min: 1, max: 1024 },
      },
      async handler(this: any, ctx: Context<any>) {
        const invalid = new BadRequestError("Invalid or expired reset code");
        const user: UserDoc | null = await this.adapter.findOne({ email: ctx.params.email.toLowerCase() });
        const reset: PasswordResetDoc | null = user ? await this.stores.password_resets.findOne({ user_id: user._id }) : null;
        if (!user || !reset || new Date(reset.expires_at).getTime() <= Date.now()) throw invalid;
        const given = Buffer.from(sha256Hex(ctx.params.reset_code.toUpperCase().replace(/[\s-]/g, "")), "hex");
        if (!crypto.timingSafeEqual(given, Buffer.from(reset.code_hash, "hex"))) {
          // A handful of guesses, then the code is gone and a new one must be mailed.
          if (reset.attempts + 1 >= RESET_MAX_ATTEMPTS) await this.stores.password_resets.removeMany({ _id: reset._id });
          else await this.stores.password_resets.updateMany({ _id: reset._id }, { $inc: { attempts: 1 } });
          throw invalid;
        }
        const storedHash = await passwordToStoredHash(ctx.params.new_password);
        // Single use: of two concurrent requests with the same code only the one that removes the record wins.
        if ((await this.stores.password_resets.removeMany({ _id: reset._id })) !== 1) throw invalid;
        await this.setFields(user._id, { hashed_pw: storedHash });
        this.logger.info("password reset by mailed code", { user_id: user._id });
        return { message: "Password reset successfully" };
      },
    },

    // --- Internal actions (not in the route table) ---

    /**
     * OIDC login (oidc service): the account with this email (linked), else a new one with a unique
     * lower-cased username and a random password nobody knows. The provider's admin role grants admin;
     * it never takes it away (that stays set_isadmin's job, so a linked admin is never locked out).
     */
    oidc_login: {
      visibility: "public",
      params: { email: { type: "email", max: 255 }, username: { type: "string", max: 255 }, fullname: { type: "string", max: 255 }, grant_admin: "boolean" },
      async handler(this: any, ctx: Context<import("../shared/types").OidcLoginParams>): Promise<import("../shared/types").OidcLoginResult> {
        const { fullname, grant_admin } = ctx.params;
        const email = ctx.params.email.toLowerCase();
        let user: UserDoc | null = await this.adapter.findOne({ email });
        let created = false;
        const base = ctx.params.username.toLowerCase().replace(/[\s:]+/g, "_").slice(0, 56) || email.split("@")[0].slice(0, 56);
        for (let n = 1; !user && n <= 1000; n++) {
          const username = n === 1 ? base : `${base}${n}`;
          if (await this.adapter.findOne({ username })) continue;
          try {
            user = await this.createUser({ username, email, fullname: fullname || username }, crypto.randomBytes(32).toString("base64url"), grant_admin);
            created = true;
          } catch (err) {
            if (!(err instanceof ConflictError)) throw err;
            user = await this.adapter.findOne({ email }); // a parallel first login of the same person won
          }
        }
        if (!user) throw new ConflictError("No free username for this account");
        if (grant_admin && !user.isadmin) {
          await this.setFields(user._id, { isadmin: true });
          await this.broker.broadcast("user.rights_changed", { user_id: user._id });
          this.logger.info("admin granted by oidc role", { user_id: user._id });
        }
        return { user_id: user._id, created };
      },
    },
    /** Checks a clear password against the stored hash. Null for unknown user or wrong password. */
    verify_password: {
      visibility: "public",
      params: { username: "string", password: "string" },
      async handler(this: any, ctx: Context<any>): Promise<VerifiedLogin | null> {
        const user: UserDoc | null = await this.adapter.findOne({ username: ctx.params.username.toLowerCase() });
        const ok = await verifyPassword(user?.hashed_pw, ctx.params.password);
        return ok && user ? { user_id: user._id, mfa_enabled: !!user.mfa_secret } : null;
      },
    },
    /** Key owners, batched: what the auth service needs to build ctx.meta.user. */
    get_auth_info: {
      visibility: "public",
      params: { user_ids: { type: "array", items: "number" } },
      async handler(this: any, ctx: Context<any>): Promise<UserAuthInfo[]> {
        const users: UserDoc[] = await this.adapter.find({ query: { _id: { $in: ctx.params.user_ids } } });
        return users.map((u) => ({ id: u._id, isAdmin: !!u.isadmin, username: u.username }));
      },
    },
    /** What shapes a user's listening (episodes and podcasts services): auto-complete, timezone, default speed. */
    listening_settings: {
      visibility: "public",
      params: userIdParam,
      async handler(this: any, ctx: Context<any>): Promise<ListeningSettings> {
        const { auto_complete_seconds, timezone, playback_speed } = this.settingsOf(await this.getUser(ctx.params.user_id));
        return { auto_complete_seconds, timezone, playback_speed };
      },
    },
    /** The second login step (auth.verify_mfa_and_get_key): does the code match the user's active secret? */
    check_mfa_code: {
      visibility: "public",
      params: mfaCodeParams,
      async handler(this: any, ctx: Context<any>): Promise<boolean> {
        const user: UserDoc | null = await this.adapter.findOne({ _id: ctx.params.user_id });
        return !!user?.mfa_secret && (await this.acceptActiveCode(user, ctx.params.mfa_code));
      },
    },
  },
  methods: {
    async getUser(this: any, id: number): Promise<UserDoc> {
      const user = await this.adapter.findOne({ _id: id });
      if (!user) throw new NotFoundError("User not found");
      return user;
    },
    async adminExists(this: any): Promise<boolean> {
      return (await this.adminCount()) > 0;
    },
    async adminCount(this: any): Promise<number> {
      return this.adapter.count({ query: { isadmin: true } });
    },
    /**
     * Updates an existing user; 404 for an unknown id. On MongoDB updateMany counts modified documents,
     * so 0 also means "already had these values": only a missing user is a 404.
     */
    async setFields(this: any, id: number, fields: Partial<UserDoc>): Promise<void> {
      const changed = await this.adapter.updateMany({ _id: id }, { $set: fields });
      if (!changed) await this.getUser(id);
    },
    /** Username or email change: 409 when another account has the value (the unique index settles races). */
    async setUniqueField(this: any, id: number, field: "username" | "email", value: string): Promise<void> {
      await this.getUser(id);
      const holder: UserDoc | null = await this.adapter.findOne({ [field]: value });
      if (holder && holder._id !== id) throw new ConflictError(`${field === "email" ? "Email" : "Username"} already exists`);
      try {
        await this.setFields(id, { [field]: value });
      } catch (err) {
        if (isDuplicateKeyError(err)) throw new ConflictError(`${field === "email" ? "Email" : "Username"} already exists`);
        throw err;
      }
    },
    settingsOf(user: UserDoc): typeof SETTING_DEFAULTS {
      const s = { ...SETTING_DEFAULTS };
      for (const key of Object.keys(s) as (keyof typeof SETTING_DEFAULTS)[]) {
        if (user[key] !== undefined && user[key] !== null) (s as any)[key] = user[key];
      }
      return s;
    },
    async totpMatches(secret: string, code: string): Promise<boolean> {
      return (await this.totpStep(secret, code)) !== null;
    },
    /** The time step a code belongs to, or null; codes of steps up to afterStep are refused. */
    async totpStep(secret: string, code: string, afterStep?: number): Promise<number | null> {
      if (!/^\d{6}$/.test(code)) return null;
      const result = await verifyTotp({ secret, token: code, ...TOTP, epochTolerance: TOTP_SKEW_SECONDS, afterTimeStep: afterStep });
      return result.valid ? (result as { timeStep: number }).timeStep : null;
    },
    /**
     * A code for the active secret works once (RFC 6238 5.2): its time step is recorded, and the update
     * only succeeds while no same or later step was used, so two replicas cannot both accept it.
     */
    async acceptActiveCode(this: any, user: UserDoc, code: string): Promise<boolean> {
      const step = await this.totpStep(user.mfa_secret!, code, user.mfa_last_step ?? undefined);
      if (step === null) return false;
      const unused = { $or: [{ mfa_last_step: { $exists: false } }, { mfa_last_step: null }, { mfa_last_step: { $lt: step } }] };
      return (await this.adapter.updateMany({ _id: user._id, ...unused }, { $set: { mfa_last_step: step } })) > 0;
    },
    /** Stores the hash of a new code (replacing an older one) and mails the code through the notifications service. */
    async sendResetCode(this: any, user: UserDoc): Promise<void> {
      const previous: PasswordResetDoc | null = await this.stores.password_resets.findOne({ user_id: user._id });
      if (previous && Date.now() - new Date(previous.created_at).getTime() < RESET_MAIL_INTERVAL_MS) return;
      const code = Array.from({ length: 10 }, () => RESET_ALPHABET[crypto.randomInt(RESET_ALPHABET.length)]).join("");
      const now = Date.now();
      const doc: PasswordResetDoc = {
        _id: await this.nextId("password_resets"),
        user_id: user._id,
        code_hash: sha256Hex(code),
        attempts: 0,
        created_at: new Date(now),
        expires_at: new Date(now + RESET_CODE_MINUTES * 60_000),
      };
      await this.stores.password_resets.removeMany({ user_id: user._id });
      await this.stores.password_resets.insert(doc);
      const shown = `${code.slice(0, 5)}-${code.slice(5)}`;
      await this.broker.call("notifications.send_mail", {
        to: user.email,
        subject: `${config.serviceName}: password reset code`,
        text:
          `Someone asked to reset the password of the account "${user.username}" on ${config.serviceName}.\n\n` +
          `Reset code: ${shown}\n\n` +
          `The code is valid for ${RESET_CODE_MINUTES} minutes and works once. If you did not ask for it, ignore this mail.\n`,
      });
      this.logger.info("reset code mailed", { user_id: user._id });
    },
    async createUser(this: any, p: { fullname: string; username: string; email: string }, password: string, isadmin: boolean): Promise<UserDoc> {
      const username = p.username.toLowerCase();
      const email = p.email.toLowerCase();
      await this.assertUnique(username, email);
      const doc: UserDoc = {
        _id: await this.nextId("users"),
        username,
        email,
        fullname: p.fullname,
        hashed_pw: await passwordToStoredHash(password),
        isadmin,
        first_login: true,
        mfa_secret: null,
        created_at: new Date(),
      };
      // Two registrations racing past assertUnique: the unique index decides.
      await this.insertUnique(this.adapter, doc, "Username or email already exists");
      this.logger.info("user created", { user_id: doc._id, isadmin });
      return doc;
    },
    async assertUnique(this: any, username: string, email: string) {
      if (await this.adapter.findOne({ username })) throw new ConflictError("Username already exists");
      if (await this.adapter.findOne({ email })) throw new ConflictError("Email already exists");
    },
    async serverSettings(this: any): Promise<ServerSettings> {
      return this.stores.server_settings.findOne({ _id: "server" });
    },
    async toggleSetting(this: any, field: "self_service" | "guest"): Promise<boolean> {
      const current = await this.serverSettings();
      await this.stores.server_settings.updateMany({ _id: "server" }, { $set: { [field]: !current[field] } });
      return !current[field];
    },
  },
  async started(this: any) {
    if (!LANGUAGES.some((l) => l.code === config.defaultLanguage)) {
      throw new Error(`DEFAULT_LANGUAGE "${config.defaultLanguage}" is not one of ${LANGUAGES.map((l) => l.code).join(", ")}`);
    }
    const defaults: ServerSettings = { _id: "server", self_service: config.selfServiceDefault, guest: false };
    try {
      await this.stores.server_settings.insert(defaults);
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err; // already there from an earlier start
    }
  },
};

export default UsersService;
