/** What travels to and from the users service: action params and results, events, and the answers of its routes. */
import { action, event } from "./call";
import { Type, type Static } from "./answers";

/** GET /api/data/get_theme/{user_id}: one of the three themes, or a custom theme's name. */
export const ThemeAnswer = Type.Object({ theme: Type.String() });
export type ThemeAnswer = Static<typeof ThemeAnswer>;

/** GET and PUT /api/data/user/sync_server: the user's own switch of the sync server, and the operator's (SYNC_SERVER_ENABLED). */
export const SyncServerAnswer = Type.Object({ sync_server: Type.Boolean(), server_enabled: Type.Boolean() });
export type SyncServerAnswer = Static<typeof SyncServerAnswer>;

/** users.get_auth_info result: what the auth service needs to know about a key's owner. */
export interface UserAuthInfo {
  id: number;
  isAdmin: boolean;
  username: string;
  /** The user's own switch of the sync server (on unless they turned it off). */
  syncServer: boolean;
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
 * user's data) and `user.rights_changed` (broadcast: the admin flag, the username or the sync-server switch changed, or
 * the user is gone, so cached key lookups must go) and `user.credentials_changed` (emitted: the password
 * changed or MFA was turned on or off, so the user's sync sessions go).
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
  /** When the account was made (ISO), null for an account restored without the date (get_stats' UserCreated). */
  created: string | null;
}

/**
 * A user's default retention of downloads (users.retention_defaults), which a podcast's own settings override
 * (podcasts.parts/retention.actions.ts): delete_after_days, the days after which downloads of completed episodes
 * go (0 = kept; the field user/set_auto_download_delete_days writes); keep_last, the newest downloaded episodes
 * kept per podcast (0 = no limit); keep_saved, saved episodes' downloads never deleted.
 */
export interface RetentionDefaults {
  delete_after_days: number;
  keep_last: number;
  keep_saved: boolean;
}

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

// --- Answers of the users service's routes ---

/** create_first: the new admin. */
export const CreateFirstAnswer = Type.Object({ message: Type.String(), user_id: Type.Integer() });
export type CreateFirstAnswer = Static<typeof CreateFirstAnswer>;
/** add_login_user and add_user (the web client reads user_id as Option<i32>). */
export const AddUserAnswer = Type.Object({ detail: Type.String(), user_id: Type.Integer() });
export type AddUserAnswer = Static<typeof AddUserAnswer>;
export const SelfServiceStatusAnswer = Type.Object({ status: Type.Boolean(), first_admin_created: Type.Boolean() });
export type SelfServiceStatusAnswer = Static<typeof SelfServiceStatusAnswer>;
export const AdminSelfServiceStatusAnswer = Type.Object({ status: Type.Boolean() });
export type AdminSelfServiceStatusAnswer = Static<typeof AdminSelfServiceStatusAnswer>;
/** enable_disable_self_service and enable_disable_guest: the new state (the web client reads success). */
export const ToggleAnswer = Type.Object({ success: Type.Boolean(), status: Type.Boolean(), detail: Type.String() });
export type ToggleAnswer = Static<typeof ToggleAnswer>;
/** user_details_id: the password fields are always null. */
export const UserDetailsAnswer = Type.Object({
  UserID: Type.Integer(),
  Fullname: Type.String(),
  Username: Type.String(),
  Email: Type.String(),
  Hashed_PW: Type.Null(),
  Salt: Type.Null(),
});
export type UserDetailsAnswer = Static<typeof UserDetailsAnswer>;
/** my_user_info: the documents' five fields, and the time, language and other preferences the web client's settings page reads. */
export const MyUserInfoAnswer = Type.Object({
  userid: Type.Integer(),
  fullname: Type.String(),
  username: Type.String(),
  email: Type.String(),
  isadmin: Type.Union([Type.Literal(0), Type.Literal(1)]),
  timezone: Type.String(),
  timeformat: Type.Integer(),
  dateformat: Type.String(),
  language: Type.String(),
  /** Preferences (issue 21): the page the web client starts on and its default volume (0-100). */
  startpage: Type.String(),
  default_volume: Type.Integer({ minimum: 0, maximum: 100 }),
});
export type MyUserInfoAnswer = Static<typeof MyUserInfoAnswer>;
export const FirstLoginAnswer = Type.Object({ FirstLogin: Type.Boolean() });
export type FirstLoginAnswer = Static<typeof FirstLoginAnswer>;
export const AdminCheckAnswer = Type.Object({ is_admin: Type.Boolean() });
export type AdminCheckAnswer = Static<typeof AdminCheckAnswer>;
export const SetupTimeInfoAnswer = Type.Object({ success: Type.Boolean() });
export type SetupTimeInfoAnswer = Static<typeof SetupTimeInfoAnswer>;
export const TimeInfoAnswer = Type.Object({ timezone: Type.String(), date_format: Type.String(), hour_pref: Type.Integer() });
export type TimeInfoAnswer = Static<typeof TimeInfoAnswer>;
export const AutoCompleteSecondsAnswer = Type.Object({ auto_complete_seconds: Type.Integer() });
export type AutoCompleteSecondsAnswer = Static<typeof AutoCompleteSecondsAnswer>;
export const PlaybackSpeedAnswer = Type.Object({ playback_speed: Type.Number() });
export type PlaybackSpeedAnswer = Static<typeof PlaybackSpeedAnswer>;
export const CoverPreferenceAnswer = Type.Object({ use_podcast_covers: Type.Boolean() });
export type CoverPreferenceAnswer = Static<typeof CoverPreferenceAnswer>;
export const LanguagesAnswer = Type.Object({ languages: Type.Array(Type.Object({ code: Type.String(), name: Type.String() })) });
export type LanguagesAnswer = Static<typeof LanguagesAnswer>;
export const DefaultLanguageAnswer = Type.Object({ default_language: Type.String() });
export type DefaultLanguageAnswer = Static<typeof DefaultLanguageAnswer>;

/** A custom theme as the web client reads it (CustomTheme: themeid, name and every colour). */
export const CustomTheme = Type.Object({
  themeid: Type.Integer(),
  name: Type.String(),
  background_color: Type.String(),
  button_color: Type.String(),
  container_button_color: Type.String(),
  button_text_color: Type.String(),
  text_color: Type.String(),
  text_secondary_color: Type.String(),
  border_color: Type.String(),
  accent_color: Type.String(),
  prog_bar_color: Type.String(),
  error_color: Type.String(),
  bonus_color: Type.String(),
  secondary_background: Type.String(),
  container_background: Type.String(),
  standout_color: Type.String(),
  hover_color: Type.String(),
  link_color: Type.String(),
  thumb_color: Type.String(),
  unfilled_color: Type.String(),
  check_box_color: Type.String(),
  created_at: Type.String({ format: "date-time" }),
});
export type CustomTheme = Static<typeof CustomTheme>;
export const CustomThemesAnswer = Type.Object({ themes: Type.Array(CustomTheme) });
export type CustomThemesAnswer = Static<typeof CustomThemesAnswer>;
export const CreateCustomThemeAnswer = Type.Object({ message: Type.String(), theme: CustomTheme });
export type CreateCustomThemeAnswer = Static<typeof CreateCustomThemeAnswer>;

/** delete_user: status is what the web client reads. */
export const DeleteUserAnswer = Type.Object({ status: Type.String(), detail: Type.String() });
export type DeleteUserAnswer = Static<typeof DeleteUserAnswer>;
export const FinalAdminAnswer = Type.Object({ final_admin: Type.Boolean() });
export type FinalAdminAnswer = Static<typeof FinalAdminAnswer>;
/** GET /api/data/get_user_info (admin; not in the documents): every account as PinePods' web client lists users, isadmin 0 or 1. */
export const UserInfoAnswer = Type.Array(
  Type.Object({
    userid: Type.Integer(),
    fullname: Type.String(),
    username: Type.String(),
    email: Type.String(),
    isadmin: Type.Union([Type.Literal(0), Type.Literal(1)]),
  }),
);
export type UserInfoAnswer = Static<typeof UserInfoAnswer>;

/** generate_mfa_secret: the secret, its otpauth:// URI (docs/spec/ROUTES.md) and that URI as a QR code (SVG) the web client shows. */
export const MfaSecretAnswer = Type.Object({ secret: Type.String(), otpauth_uri: Type.String(), qr_code_svg: Type.String() });
export type MfaSecretAnswer = Static<typeof MfaSecretAnswer>;
export const VerifiedAnswer = Type.Object({ verified: Type.Boolean() });
export type VerifiedAnswer = Static<typeof VerifiedAnswer>;
export const MfaEnabledAnswer = Type.Object({ mfa_enabled: Type.Boolean() });
export type MfaEnabledAnswer = Static<typeof MfaEnabledAnswer>;
/** delete_mfa: deleted is what the web client reads. */
export const DeleteMfaAnswer = Type.Object({ deleted: Type.Boolean(), detail: Type.String() });
export type DeleteMfaAnswer = Static<typeof DeleteMfaAnswer>;
/** POST /api/data/save_mfa_secret (not in the documents): status as PinePods' web client reads it. */
export const SaveMfaSecretAnswer = Type.Object({ status: Type.Literal("success"), detail: Type.String() });
export type SaveMfaSecretAnswer = Static<typeof SaveMfaSecretAnswer>;

export const ResetCodeAnswer = Type.Object({ code_created: Type.Boolean() });
export type ResetCodeAnswer = Static<typeof ResetCodeAnswer>;

// --- Calls to the users service and its events (shared/contracts/call.ts) ---

/** Emitted once per service group when an account is gone: each service deletes that user's data. */
export const userRemoved = event<UserEvent>("user.removed");
/** The account an OIDC login opens: found by email, or created at this first login. */
export const oidcLogin = action<OidcLoginParams, OidcLoginResult>("users.oidc_login");
/** Emitted once per service group for a new account. */
export const userCreated = event<UserEvent>("user.created");
/** Every account's id: for work done once per user. */
export const userIds = action<Record<string, never>, number[]>("users.user_ids");
/** Whether the user's own switch and the operator's open this server's sync server to them. */
export const getSyncServer = action<{ user_id: number }, SyncServerAnswer>("users.get_sync_server");
/** Switches this server's sync server for the user; the switches as they are now. */
export const setSyncServer = action<{ user_id: number; sync_server: boolean }, SyncServerAnswer>("users.set_sync_server");
/** What the auth service needs to know about these users (their keys' owner). */
export const getAuthInfo = action<{ user_ids: number[] }, UserAuthInfo[]>("users.get_auth_info");
/** By user, their default retention of downloads (gone users are left out). */
export const retentionDefaults = action<{ user_ids: number[] }, Record<number, RetentionDefaults>>("users.retention_defaults");
/** Changes the fields given of a user's default retention; the defaults as they are now. */
export const setRetentionDefaults = action<{ user_id: number } & Partial<RetentionDefaults>, RetentionDefaults>("users.set_retention_defaults");
/** A user's listening settings (playback speed, skips...). */
export const listeningSettings = action<{ user_id: number }, ListeningSettings>("users.listening_settings");
/** The second login step: does the code match the user's active MFA secret? */
export const checkMfaCode = action<{ user_id: number; mfa_code: string }, boolean>("users.check_mfa_code");
/** A clear password checked against the stored hash; null for an unknown user or a wrong password. */
export const usersVerifyPassword = action<{ username: string; password: string }, VerifiedLogin | null>("users.verify_password");
/** Emitted: the password changed or MFA was turned on or off, so the user's sync sessions go. */
export const userCredentialsChanged = event<UserEvent>("user.credentials_changed");
/** Broadcast: the admin flag, the username or the sync-server switch changed, or the user is gone; cached key lookups go. */
export const userRightsChanged = event<UserEvent>("user.rights_changed");
