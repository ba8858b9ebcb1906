/**
 * Outgoing notifications: the server's mail settings (admin) and sending mail with nodemailer over SMTP,
 * and users' push notifications of new episodes (services/notifications.parts/push.actions.ts).
 * Other services send mail through the internal action notifications.send_mail (password reset codes).
 * The SMTP password is stored because sending needs it, and never leaves this service or reaches a log.
 */
import type { ServiceSchema } from "moleculer";
import nodemailer from "nodemailer";
import { DbMixin } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { BadRequestError, ServiceUnavailableError } from "../shared/errors";
import type { SendMailParams } from "../shared/contracts/notifications";
import type { EpisodesCreatedEvent } from "../shared/contracts/episodes";
import { episodesCreated } from "../shared/contracts/episodes";
import { userRemoved } from "../shared/contracts/users";
import type { Ctx } from "../shared/service-types";
import { peopleNotifyActions } from "./notifications.parts/people.actions";
import { pushActions, pushMethods } from "./notifications.parts/push.actions";
import type { EmailSettingsDoc, EmailSettingsParams, Encryption, NotificationsThis } from "./notifications.parts/this";
import { EmailSettingsAnswer, SaveEmailSettingsAnswer, TestEmailAnswer } from "../shared/contracts/notifications";
import type { Static } from "../shared/contracts/answers";

const SETTINGS_ID = 1;
const ENCRYPTIONS: Record<string, Encryption> = { none: "none", "ssl/tls": "SSL/TLS", starttls: "StartTLS" };

const settingsProps = {
  server_name: { type: "string", trim: true, min: 1, max: 255 },
  server_port: { type: "number", integer: true, min: 1, max: 65535, convert: true },
  from_email: { type: "email", max: 255 },
  send_mode: { type: "string", trim: true, optional: true, default: "SMTP", pattern: /^smtp$/i, messages: { stringPattern: "send_mode must be SMTP" } },
  encryption: { type: "string", trim: true, optional: true, default: "none", max: 16 },
  auth_required: { type: "boolean", convert: true, optional: true, default: false },
  email_username: { type: "string", trim: true, optional: true, default: "", max: 255 },
  /** Empty keeps the stored password, so a settings form that never shows it can be saved again. */
  email_password: { type: "string", optional: true, default: "", max: 1024 },
};
const optionalProps = Object.fromEntries(Object.entries(settingsProps).map(([k, v]) => [k, { ...v, optional: true, default: undefined }]));

/** send_test_email: any of the settings (tried instead of the stored ones, not saved), where to and what. */
type TestEmailParams = Partial<EmailSettingsParams> & { to_email: string; message?: string };

const NotificationsService: ServiceSchema<Record<string, never>, NotificationsThis> = {
  name: "notifications",
  mixins: [DbMixin({ name: "email_settings" }, [{ name: "push_settings", indexes: [{ fields: { user_id: 1 } }] }])],
  created(this: NotificationsThis) {
    this.pending = new Set<Promise<void>>();
    this.sentAt = new Map<number, number[]>();
  },
  async stopped(this: NotificationsThis) {
    await Promise.allSettled([...this.pending]);
  },
  events: {
    [episodesCreated.eventName]: {
      params: { podcast_id: "number", episode_ids: { type: "array", items: "number" } },
      async handler(this: NotificationsThis, ctx: Ctx<EpisodesCreatedEvent>) {
        await this.announceEpisodes(ctx);
      },
    },
    [userRemoved.eventName]: userRemovedEvent({ push_settings: "user_id" }),
  },
  actions: {
    ...pushActions,
    ...peopleNotifyActions,
    save_email_settings: {
      params: { email_settings: { type: "object", props: settingsProps } },
      response: SaveEmailSettingsAnswer,
      async handler(this: NotificationsThis, ctx: Ctx<{ email_settings: EmailSettingsParams }>): Promise<Static<typeof SaveEmailSettingsAnswer>> {
        const doc = this.toDoc(ctx.params.email_settings, await this.storedSettings());
        await this.adapter.removeMany({ _id: SETTINGS_ID });
        await this.adapter.insert(doc);
        this.logger.info("email settings saved", { server: doc.server_name, port: doc.server_port, encryption: doc.encryption, auth: doc.auth_required });
        return { detail: "Email settings saved", message: "Email settings saved" };
      },
    },
    /** The spec's Email settings record; Password is always empty. */
    get_email_settings: {
      idempotent: true,
      params: {},
      response: EmailSettingsAnswer,
      async handler(this: NotificationsThis): Promise<Static<typeof EmailSettingsAnswer>> {
        const s: EmailSettingsDoc | null = await this.storedSettings();
        return {
          Emailsettingsid: SETTINGS_ID,
          ServerName: s?.server_name ?? "",
          ServerPort: s?.server_port ?? 587,
          FromEmail: s?.from_email ?? "",
          SendMode: s?.send_mode ?? "SMTP",
          Encryption: s?.encryption ?? "StartTLS",
          AuthRequired: s?.auth_required ? 1 : 0,
          Username: s?.username ?? "",
          Password: "",
        };
      },
    },
    /** Sends a test mail with the stored settings, or with settings given in the body (not saved) to try them first. */
    send_test_email: {
      params: { ...optionalProps, to_email: { type: "email", max: 255 }, message: { type: "string", optional: true, max: 10_000 } },
      response: TestEmailAnswer,
      async handler(this: NotificationsThis, ctx: Ctx<TestEmailParams>): Promise<Static<typeof TestEmailAnswer>> {
        const stored: EmailSettingsDoc | null = await this.storedSettings();
        const fields = Object.keys(settingsProps) as (keyof EmailSettingsParams)[];
        const given: Partial<EmailSettingsParams> = Object.fromEntries(fields.filter((k) => ctx.params[k] !== undefined).map((k) => [k, ctx.params[k]]));
        let settings = stored;
        if (Object.keys(given).length) {
          const base = stored
            ? {
                server_name: stored.server_name,
                server_port: stored.server_port,
                from_email: stored.from_email,
                encryption: stored.encryption,
                auth_required: stored.auth_required,
                email_username: stored.username,
              }
            : {};
          const merged: Partial<EmailSettingsParams> = { ...base, ...given };
          if (!merged.server_name || !merged.server_port || !merged.from_email)
            throw new BadRequestError("server_name, server_port and from_email are required");
          settings = this.toDoc({ ...merged, server_name: merged.server_name, server_port: merged.server_port, from_email: merged.from_email }, stored);
        }
        if (!settings) throw new BadRequestError("No email settings saved");
        try {
          await this.deliver(settings, {
            to: ctx.params.to_email,
            subject: "Test mail",
            text: ctx.params.message || "This is a test mail from your podcast server.",
          });
        } catch (err) {
          throw new BadRequestError(`Sending failed: ${(err as Error | undefined)?.message ?? "unknown error"}`);
        }
        return { email_status: "Email sent successfully" };
      },
    },

    // --- Internal actions ---

    /** Sends one plain-text mail with the stored settings; 503 when mail is not configured. */
    send_mail: {
      visibility: "public",
      params: { to: { type: "email" }, subject: { type: "string", min: 1, max: 998 }, text: { type: "string", max: 100_000 } },
      async handler(this: NotificationsThis, ctx: Ctx<SendMailParams>): Promise<{ sent: true }> {
        const settings: EmailSettingsDoc | null = await this.storedSettings();
        if (!settings) throw new ServiceUnavailableError("Mail is not configured: an admin saves the email settings first");
        await this.deliver(settings, ctx.params);
        return { sent: true };
      },
    },
  },
  methods: {
    ...pushMethods,
    async storedSettings(this: NotificationsThis): Promise<EmailSettingsDoc | null> {
      return this.adapter.findOne({ _id: SETTINGS_ID });
    },
    toDoc(this: NotificationsThis, p: EmailSettingsParams, stored: EmailSettingsDoc | null): EmailSettingsDoc {
      const encryption = ENCRYPTIONS[String(p.encryption ?? "none").toLowerCase()];
      if (!encryption) throw new BadRequestError("encryption must be none, SSL/TLS or StartTLS");
      return {
        _id: SETTINGS_ID,
        server_name: p.server_name,
        server_port: p.server_port,
        from_email: p.from_email,
        send_mode: "SMTP",
        encryption,
        auth_required: !!p.auth_required,
        username: p.email_username ?? "",
        password: p.email_password || stored?.password || "",
      };
    },
    async deliver(this: NotificationsThis, s: EmailSettingsDoc, mail: SendMailParams): Promise<void> {
      const transport = nodemailer.createTransport({
        host: s.server_name,
        port: s.server_port,
        secure: s.encryption === "SSL/TLS",
        requireTLS: s.encryption === "StartTLS",
        ignoreTLS: s.encryption === "none",
        auth: s.auth_required ? { user: s.username, pass: s.password } : undefined,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
      });
      try {
        const info = await transport.sendMail({ from: s.from_email, to: mail.to, subject: mail.subject, text: mail.text });
        this.logger.info("mail sent", { message_id: info.messageId });
      } finally {
        transport.close();
      }
    },
  },
};

export default NotificationsService;
