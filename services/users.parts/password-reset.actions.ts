/**
 * Password reset by mail (open routes): a short-lived code, stored only as its SHA-256, mailed through the notifications service.
 */
import crypto from "crypto";
import type { ServiceActionsSchema } from "moleculer";
import { config } from "../../shared/config";
import { BadRequestError } from "../../shared/errors";
import { passwordToStoredHash, sha256Hex } from "../../shared/secrets";
import type { Ctx } from "../../shared/service-types";
import { UserDoc } from "./model";
import type { UsersMethods, UsersThis } from "./model";
import { ResetCodeAnswer } from "../../shared/contracts/users";
import { attemptSucceeded, beginAttempt } from "../../shared/contracts/auth";
import { sendMail } from "../../shared/contracts/notifications";
import { MessageAnswer } from "../../shared/contracts/answers";
import type { Static } from "../../shared/contracts/answers";

/**
 * A pending password reset: only the SHA-256 of the mailed code is kept. A new request does not void the
 * older codes (someone else could ask every minute to void the owner's); guesses are limited per address
 * by the auth service, against 50-bit codes.
 */
export interface PasswordResetDoc {
  _id: number;
  user_id: number;
  code_hash: string;
  created_at: Date;
  /** The TTL index drops the record at this time. */
  expires_at: Date;
}

const RESET_CODE_MINUTES = 15;
/** At most one reset mail per account in this time, so the open route cannot flood a mailbox. */
const RESET_MAIL_INTERVAL_MS = 60_000;
// Unambiguous letters and digits (no 0/O, 1/I): 10 of them are 50 bits, read from a mail by a person.
const RESET_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

export const passwordResetActions: ServiceActionsSchema = {
  /** Same answer whether or not the account exists; the mail goes out in the background (no timing tell). */
  reset_password_create_code: {
    params: { email: { type: "email", max: 255 }, username: { type: "string", trim: true, min: 1, max: 64 } },
    response: ResetCodeAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ email: string; username: string }>): Promise<Static<typeof ResetCodeAnswer>> {
      // Each request counts like a failed attempt: one address cannot have codes mailed to many accounts.
      await beginAttempt(ctx, { username: ctx.params.username });
      const user: UserDoc | null = await this.adapter.findOne({ email: ctx.params.email.toLowerCase(), username: ctx.params.username.toLowerCase() });
      if (user) {
        this.sendResetCode(user).catch((err: unknown) =>
          this.logger.warn("reset mail not sent", { user_id: user._id, error: (err as Error | undefined)?.message }),
        );
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
    response: MessageAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ reset_code: string; email: string; new_password: string }>): Promise<Static<typeof MessageAnswer>> {
      const invalid = new BadRequestError("Invalid or expired reset code");
      const { attempt_id } = await beginAttempt(ctx, { username: ctx.params.email });
      const user: UserDoc | null = await this.adapter.findOne({ email: ctx.params.email.toLowerCase() });
      const pending: PasswordResetDoc[] = user ? await this.stores.password_resets.find({ query: { user_id: user._id, expires_at: { $gt: new Date() } } }) : [];
      const given = Buffer.from(sha256Hex(ctx.params.reset_code.toUpperCase().replace(/[\s-]/g, "")), "hex");
      const reset = pending.find((r) => crypto.timingSafeEqual(given, Buffer.from(r.code_hash, "hex")));
      if (!user || !reset) throw invalid;
      await attemptSucceeded(ctx, { attempt_id });
      const storedHash = await passwordToStoredHash(ctx.params.new_password);
      // Single use: of two concurrent requests with the same code only the one that removes the record wins.
      if ((await this.stores.password_resets.removeMany({ _id: reset._id })) !== 1) throw invalid;
      await this.stores.password_resets.removeMany({ user_id: user._id });
      await this.setFields(user._id, { hashed_pw: storedHash });
      this.logger.info("password reset by mailed code", { user_id: user._id });
      await this.credentialsChanged(user._id);
      return { message: "Password reset successfully" };
    },
  },
};

export const passwordResetMethods: Pick<UsersMethods, "sendResetCode"> = {
  /** Stores the hash of a new code (older ones stay valid until they expire) and mails the code through the notifications service. */
  async sendResetCode(this: UsersThis, user: UserDoc): Promise<void> {
    const [previous]: PasswordResetDoc[] = await this.stores.password_resets.find({ query: { user_id: user._id }, sort: ["-created_at"], limit: 1 });
    if (previous && Date.now() - new Date(previous.created_at).getTime() < RESET_MAIL_INTERVAL_MS) return;
    const code = Array.from({ length: 10 }, () => RESET_ALPHABET[crypto.randomInt(RESET_ALPHABET.length)]).join("");
    const now = Date.now();
    const doc: PasswordResetDoc = {
      _id: await this.nextId("password_resets"),
      user_id: user._id,
      code_hash: sha256Hex(code),
      created_at: new Date(now),
      expires_at: new Date(now + RESET_CODE_MINUTES * 60_000),
    };
    await this.stores.password_resets.insert(doc);
    const shown = `${code.slice(0, 5)}-${code.slice(5)}`;
    await sendMail(this.broker, {
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
