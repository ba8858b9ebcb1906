/** What travels to and from the users service: action params and results, events, and the answers of its routes. */
import { Type, type Static } from "./answers";

/** GET /api/data/get_theme/{user_id}: one of the three themes, or a custom theme's name. */
export const ThemeAnswer = Type.Object({ theme: Type.String() });
export type ThemeAnswer = Static<typeof ThemeAnswer>;

/** users.get_auth_info result: what the auth service needs to know about a key's owner. */
export interface UserAuthInfo {
  id: number;
  isAdmin: boolean;
  username: string;
}

/** users.oidc_login params: who the OIDC provider says logged in. */
export interface OidcLoginParams {
  email: string;
  username: string;
  fullname: string;
  grant_admin: boolean;
}

/** users.oidc_login result: the account logged into, created at this first login or found by email. */
export interface OidcLoginResult {
  user_id: number;
  created: boolean;
}

/** users.verify_password result. */
export interface VerifiedLogin {
  user_id: number;
  mfa_enabled: boolean;
}

/**
 * Events of the users service: `user.created` (emitted once per service group for a new account),
 * `user.removed` (emitted once per service group: each service deletes that
 * user's data) and `user.rights_changed` (broadcast: the admin flag changed or the user is gone, so cached key
 * lookups must go).
 */
export interface UserEvent {
  user_id: number;
}

/** users.listening_settings result: the settings that shape a user's listening. */
export interface ListeningSettings {
  /** 0 to 300; 0 disables auto-complete. */
  auto_complete_seconds: number;
  /** IANA name: the user's days (streaks, per day statistics) are counted in it. */
  timezone: string;
  /** Default speed when a podcast has no override. */
  playback_speed: number;
}

/** users.auto_delete_days result: user_id -> the days after which their completed downloads go (0 = kept). */
export type AutoDeleteDefaults = Record<number, number>;

/** GET /api/data/startpage: the web client's page the user starts on. */
export const StartPageAnswer = Type.Object({ StartPage: Type.String() });
export type StartPageAnswer = Static<typeof StartPageAnswer>;
/** POST /api/data/get_default_volume: 0-100. */
export const DefaultVolumeAnswer = Type.Object({ default_volume: Type.Integer({ minimum: 0, maximum: 100 }) });
export type DefaultVolumeAnswer = Static<typeof DefaultVolumeAnswer>;
/** GET /api/data/get_user_language: a code of get_available_languages. */
export const LanguageAnswer = Type.Object({ language: Type.String() });
export type LanguageAnswer = Static<typeof LanguageAnswer>;
/** PUT /api/data/update_user_language */
export const LanguageUpdatedAnswer = Type.Object({ success: Type.Boolean(), language: Type.String() });
export type LanguageUpdatedAnswer = Static<typeof LanguageUpdatedAnswer>;
/** GET /api/data/collection_add_ui: how the web client adds an episode to a collection. */
export const CollectionAddUiAnswer = Type.Object({ collection_add_ui: Type.Union([Type.Literal("modal"), Type.Literal("submenu")]) });
export type CollectionAddUiAnswer = Static<typeof CollectionAddUiAnswer>;
