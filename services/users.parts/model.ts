/**
 * The users service's stored records, setting defaults and the param rules its action modules share, and its
 * `this` (UsersThis: the service file and every part of it).
 */
import type { Static, TSchema } from "../../shared/contracts/answers";
import type { Ctx, DbThis } from "../../shared/service-types";
import { BadRequestError } from "../../shared/errors";
import type { PasswordResetDoc } from "./password-reset.actions";

/** The documented themes, or a theme of PinePods' clients by its name (CLIENT_THEMES). */
export type Theme = string;
/**
 * The built-in themes of PinePods' web client (theme_options.rs) and mobile app (ui/themes.dart), by the name they
 * send: accepted besides light, dark and auto and stored as sent (get_theme answers it, and the client applies it).
 */
export const CLIENT_THEMES = [
  "Light",
  "Dark",
  "Nordic",
  "Nordic Light",
  "Abyss",
  "Dracula",
  "Catppuccin Mocha Mauve",
  "Midnight Ocean",
  "Forest Depths",
  "Sunset Horizon",
  "Arctic Frost",
  "Cyber Synthwave",
  "Github Light",
  "Neon",
  "Kimbie",
  "Gruvbox Light",
  "Gruvbox Dark",
  "Greenie Meanie",
  "Wildberries",
  "Soft Lavender",
  "Minty Fresh",
  "Warm Vanilla",
  "Coastal Blue",
  "Paper Cream",
  "Hot Dog Stand - MY EYES",
];

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
  /** The user's own switch of the sync server (gPodder / Nextcloud routes); absent = on. */
  sync_server?: boolean;
  /** Preferences (users.parts/preferences.actions.ts). */
  start_page?: string;
  default_volume?: number;
  /** One of LANGUAGES; absent = the server's DEFAULT_LANGUAGE. */
  language?: string;
  collection_add_ui?: string;
  /** Downloads of completed episodes go after this many days (0 = kept); a podcast may say otherwise. */
  auto_download_delete_days?: number;
  /** The default retention besides those days (users.parts/preferences.actions.ts): newest downloads kept per podcast (0 = all), saved ones kept. */
  retention_keep_last?: number;
  retention_keep_saved?: boolean;
  created_at: Date;
}

export interface ServerSettings {
  _id: "server";
  self_service: boolean;
  guest: boolean;
}

/** A user's colour theme; every colour field of the spec's custom theme record is required. */
export interface CustomThemeDoc {
  _id: number;
  user_id: number;
  name: string;
  colors: Record<string, string>;
  created_at: Date;
}

/** A user's settings, defaults filled in (settingsOf). */
export type Settings = typeof SETTING_DEFAULTS;

export interface UsersMethods {
  getUser(id: number): Promise<UserDoc>;
  adminExists(): Promise<boolean>;
  adminCount(): Promise<number>;
  setFields(id: number, fields: Partial<UserDoc>): Promise<void>;
  setUniqueField(id: number, field: "username" | "email", value: string): Promise<void>;
  settingsOf(user: UserDoc): Settings;
  createUser(p: { fullname: string; username: string; email: string }, password: string, isadmin: boolean): Promise<UserDoc>;
  credentialsChanged(userId: number): Promise<void>;
  assertUnique(username: string, email: string): Promise<void>;
  serverSettings(): Promise<ServerSettings>;
  toggleSetting(field: "self_service" | "guest"): Promise<boolean>;
  // mfa.actions.ts
  totpMatches(secret: string, code: string): Promise<boolean>;
  totpStep(secret: string, code: string, afterStep?: number): Promise<number | null>;
  acceptActiveCode(user: UserDoc, code: string): Promise<boolean>;
  // password-reset.actions.ts
  sendResetCode(user: UserDoc): Promise<void>;
  // preferences.actions.ts
  languageOf(user: UserDoc): string;
}

export type UsersThis = DbThis<UserDoc, { server_settings: ServerSettings; custom_themes: CustomThemeDoc; password_resets: PasswordResetDoc }> & UsersMethods;

export const SETTING_DEFAULTS = {
  theme: "auto" as Theme,
  timezone: "UTC",
  hour_pref: 24 as 12 | 24,
  date_format: "YYYY-MM-DD",
  auto_complete_seconds: 0,
  playback_speed: 1.0,
  use_podcast_covers: false,
  start_page: "home",
  default_volume: 100,
  collection_add_ui: "modal",
  auto_download_delete_days: 0,
  retention_keep_last: 0,
  retention_keep_saved: true,
};

export const DATE_FORMATS = ["MM/DD/YYYY", "DD/MM/YYYY", "YYYY-MM-DD"];
/**
 * The format codes PinePods' web client sends (set-up and settings), stored as the closest documented format:
 * EUR (DD.MM.YYYY) as DD/MM/YYYY, JIS and ISO as YYYY-MM-DD, JUL (YY/DDD, year first) as YYYY-MM-DD.
 */
export const DATE_FORMAT_ALIASES: Record<string, string> = {
  MDY: "MM/DD/YYYY",
  USA: "MM/DD/YYYY",
  DMY: "DD/MM/YYYY",
  EUR: "DD/MM/YYYY",
  YMD: "YYYY-MM-DD",
  ISO: "YYYY-MM-DD",
  JIS: "YYYY-MM-DD",
  JUL: "YYYY-MM-DD",
};

/** Languages clients may offer; GET get_available_languages lists them, DEFAULT_LANGUAGE picks one. */
export const LANGUAGES = [
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

export const THEME_COLOR_FIELDS = [
  "background_color",
  "button_color",
  "container_button_color",
  "button_text_color",
  "text_color",
  "text_secondary_color",
  "border_color",
  "accent_color",
  "prog_bar_color",
  "error_color",
  "bonus_color",
  "secondary_background",
  "container_background",
  "standout_color",
  "hover_color",
  "link_color",
  "thumb_color",
  "unfilled_color",
  "check_box_color",
] as const;
export type ThemeColorField = (typeof THEME_COLOR_FIELDS)[number];
const CSS_COLOR = /^(#[0-9a-fA-F]{3,4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|(rgb|rgba|hsl|hsla)\([0-9.,%\s/]+\))$/;
export const colorParam = {
  type: "string",
  trim: true,
  max: 64,
  pattern: CSS_COLOR,
  messages: { stringPattern: "The '{field}' field must be a CSS colour (#hex, rgb(), hsl())" },
};

export const usernameParam = {
  type: "string",
  trim: true,
  min: 1,
  max: 64,
  pattern: /^[^\s:]+$/,
  messages: { stringPattern: "The '{field}' may not contain spaces or ':'" },
};
export const userFields = {
  fullname: { type: "string", trim: true, min: 1, max: 255 },
  username: usernameParam,
  email: { type: "email", max: 255 },
};
export const newUserParams = { ...userFields, hash_pw: { type: "string", min: 1, max: 1024 } };
export const userId = { type: "number", integer: true, positive: true, convert: true };
export const userIdParam = { user_id: userId };
export const mfaCodeParams = { user_id: userId, mfa_code: { type: "string", convert: true, trim: true, min: 1, max: 16 } };

/** IANA names only ("Europe/Berlin", "UTC"); offsets such as "+01:00" are refused. Returns the canonical name. */
export function canonicalTimezone(tz: string): string {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) throw new BadRequestError(`Unknown timezone '${tz}': use an IANA name such as Europe/Berlin`);
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    throw new BadRequestError(`Unknown timezone '${tz}': use an IANA name such as Europe/Berlin`);
  }
}

/**
 * A plain setting getter: one of the user's settings (defaults filled in by settingsOf) answered under
 * `key`. idempotent: for a GET route (a POST one is left as the broker's rule has it).
 */
export function getter<T extends TSchema>(field: keyof Settings, key: string, response: T, idempotent?: true) {
  return {
    ...(idempotent ? { idempotent } : {}),
    params: userIdParam,
    response,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number }>): Promise<Static<T>> {
      return { [key]: this.settingsOf(await this.getUser(ctx.params.user_id))[field] };
    },
  };
}

/** A plain setting setter: one validated param stored in one field of the user, a fixed answer. */
export function setter<F extends keyof UserDoc, P extends string, T extends TSchema>(field: F, param: P, rule: object, response: T, answer: Static<T>) {
  return {
    params: { user_id: userId, [param]: rule },
    response,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number } & { [K in P]: UserDoc[F] }>): Promise<Static<T>> {
      const given: { [K in P]: UserDoc[F] } = ctx.params;
      const fields: Partial<UserDoc> = {};
      fields[field] = given[param];
      await this.setFields(ctx.params.user_id, fields);
      return answer;
    },
  };
}
