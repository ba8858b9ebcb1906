/** What travels to the notifications service, and the answers of its routes. */
import { action } from "./call";
import { Nullable, Type, type Static } from "./answers";

/** notifications.send_mail params: one plain-text mail, sent with the admin's email settings. */
export interface SendMailParams {
  to: string;
  subject: string;
  text: string;
}

/** notifications.notify_followers params item: a new episode in which a person the user follows appears (following.service). */
export interface FollowerMessage {
  user_id: number;
  person: string;
  podcast_id: number;
  podcast_title: string | null;
  episode_id: number;
  episode_title: string;
  episode_url: string | null;
  pub_date: string | null;
}

// --- Answers of the notifications service's routes ---

/** get_email_settings (the documents' record; Password is never returned, always ""). */
export const EmailSettingsAnswer = Type.Object({
  Emailsettingsid: Type.Integer(),
  ServerName: Type.String(),
  ServerPort: Type.Integer(),
  FromEmail: Type.String(),
  SendMode: Type.String(),
  Encryption: Type.String(),
  AuthRequired: Type.Integer(),
  Username: Type.String(),
  Password: Type.String(),
});
export type EmailSettingsAnswer = Static<typeof EmailSettingsAnswer>;
/** save_email_settings: detail is what the web client reads. */
export const SaveEmailSettingsAnswer = Type.Object({ detail: Type.String(), message: Type.String() });
export type SaveEmailSettingsAnswer = Static<typeof SaveEmailSettingsAnswer>;
export const TestEmailAnswer = Type.Object({ email_status: Type.String() });
export type TestEmailAnswer = Static<typeof TestEmailAnswer>;

/** One platform's push settings: secrets never leave the server, only whether each is set. */
export const PushSettings = Type.Object({
  platform: Type.String(),
  enabled: Type.Boolean(),
  notifa_topic: Nullable(Type.String()),
  notifa_server_url: Nullable(Type.String()),
  notifa_username: Nullable(Type.String()),
  notifb_url: Nullable(Type.String()),
  http_url: Nullable(Type.String()),
  http_method: Nullable(Type.String()),
  notifa_password_set: Type.Boolean(),
  notifa_access_token_set: Type.Boolean(),
  notifb_token_set: Type.Boolean(),
  http_token_set: Type.Boolean(),
});
export type PushSettings = Static<typeof PushSettings>;
export const NotificationSettingsAnswer = Type.Object({ settings: Type.Array(PushSettings) });
export type NotificationSettingsAnswer = Static<typeof NotificationSettingsAnswer>;
export const UpdateNotificationSettingsAnswer = Type.Object({ detail: Type.String(), settings: PushSettings });
export type UpdateNotificationSettingsAnswer = Static<typeof UpdateNotificationSettingsAnswer>;
export const TestNotificationAnswer = Type.Object({ detail: Type.String(), success: Type.Boolean() });
export type TestNotificationAnswer = Static<typeof TestNotificationAnswer>;

// --- Calls to the notifications service and its events (shared/contracts/call.ts) ---

/** Notifies followers of the episodes their people appear in; how many notifications went. */
export const notifyFollowers = action<{ messages: FollowerMessage[] }, number>("notifications.notify_followers");
/** Sends one plain-text mail with the admin's email settings; 503 when mail is not configured. */
export const sendMail = action<SendMailParams, { sent: true }>("notifications.send_mail");
