/**
 * The notifications service's `this` (services/notifications.service.ts and every part of it): its stores,
 * its methods (the service file's and push.actions.ts') and what it keeps in memory.
 */
import type { EpisodesCreatedEvent } from "../../shared/contracts/episodes";
import type { PushSettings, SendMailParams } from "../../shared/contracts/notifications";
import type { Ctx, DbThis } from "../../shared/service-types";
import type { PushMessage, PushSettingsDoc } from "./push";

export type Encryption = "none" | "SSL/TLS" | "StartTLS";

/** The one stored mail configuration of the server. */
export interface EmailSettingsDoc {
  _id: number;
  server_name: string;
  server_port: number;
  from_email: string;
  send_mode: "SMTP";
  encryption: Encryption;
  auth_required: boolean;
  username: string;
  password: string;
}

/** Mail settings as save_email_settings and send_test_email receive them (the password only ever comes in). */
export interface EmailSettingsParams {
  server_name: string;
  server_port: number;
  from_email: string;
  send_mode?: string;
  encryption?: string;
  auth_required?: boolean;
  email_username?: string;
  email_password?: string;
}

export interface NotificationsMethods {
  storedSettings(): Promise<EmailSettingsDoc | null>;
  toDoc(p: EmailSettingsParams, stored: EmailSettingsDoc | null): EmailSettingsDoc;
  deliver(s: EmailSettingsDoc, mail: SendMailParams): Promise<void>;
  publicSettings(d: PushSettingsDoc): PushSettings;
  checkComplete(d: PushSettingsDoc): void;
  announceEpisodes(ctx: Ctx<EpisodesCreatedEvent>): Promise<void>;
  deliverPush(endpoint: PushSettingsDoc, msg: PushMessage): void;
  takeToken(user_id: number): boolean;
}

export type NotificationsThis = DbThis<EmailSettingsDoc, { push_settings: PushSettingsDoc }> &
  NotificationsMethods & {
    /** Deliveries under way (awaited when the service stops). */
    pending: Set<Promise<void>>;
    /** Per user, when their messages of the last minute went (takeToken's budget). */
    sentAt: Map<number, number[]>;
  };
