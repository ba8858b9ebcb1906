/**
 * Password reset by mail (open routes): a short-lived code, stored only as its SHA-256, mailed through the notifications service.
 */
import crypto from "crypto";
import type { Context, ServiceActionsSchema, ServiceMethods } from "moleculer";
import { config } from "../../shared/config";
import { BadRequestError } from "../../shared/errors";
import { passwordToStoredHash, sha256Hex } from "../../shared/secrets";
import { UserDoc } from "./model";

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

const RESET_CODE_MINUTES = 15;
const RESET_MAX_ATTEMPTS = 5;
/** At most one reset mail per account in this time, so the open route cannot flood a mailbox. */
const RESET_MAIL_INTERVAL_MS = 60_000;
// Unambiguous letters and digits (no 0/O, 1/I): 10 of them are 50 bits, read from a mail by a person.
const RESET_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

export const passwordResetActions: ServiceActionsSchema = {
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
};

export const passwordResetMethods: ServiceMethods = {
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
};
