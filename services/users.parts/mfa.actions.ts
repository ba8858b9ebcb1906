/**
 * MFA (TOTP) of the users service: set-up, verification, removal, and the one-use check of a login code.
 */
import type { ServiceActionsSchema } from "moleculer";
import QRCode from "qrcode";
import { generateSecret, generateURI, verify as verifyTotp } from "otplib";
import { config } from "../../shared/config";
import { BadRequestError } from "../../shared/errors";
import type { Ctx } from "../../shared/service-types";
import { mfaCodeParams, userId, userIdParam, UserDoc } from "./model";
import type { UsersMethods, UsersThis } from "./model";
import { DeleteMfaAnswer, MfaEnabledAnswer, MfaSecretAnswer, SaveMfaSecretAnswer, VerifiedAnswer } from "../../shared/contracts/users";
import type { Static } from "../../shared/contracts/answers";

/** The params of a check of a code (mfaCodeParams). */
type CodeParams = { user_id: number; mfa_code: string };

/** TOTP as every authenticator app does it: SHA-1, 6 digits, 30 s steps; one step of clock skew either way. */
const TOTP = { algorithm: "sha1", digits: 6, period: 30 } as const;
const TOTP_SKEW_SECONDS = 30;

export const mfaActions: ServiceActionsSchema = {
  /** Starts set-up: a new pending secret, active only once verify_temp_mfa sees a valid code from it. */
  generate_mfa_secret: {
    idempotent: false,
    params: userIdParam,
    response: MfaSecretAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof MfaSecretAnswer>> {
      const user: UserDoc = await this.getUser(ctx.params.user_id);
      const secret = generateSecret();
      await this.setFields(user._id, { mfa_pending_secret: secret });
      const uri = generateURI({ issuer: config.serviceName, label: user.username, secret, ...TOTP });
      return { secret, otpauth_uri: uri, qr_code_svg: await QRCode.toString(uri, { type: "svg" }) };
    },
  },
  verify_temp_mfa: {
    params: mfaCodeParams,
    response: VerifiedAnswer,
    async handler(this: UsersThis, ctx: Ctx<CodeParams>): Promise<Static<typeof VerifiedAnswer>> {
      const user: UserDoc = await this.getUser(ctx.params.user_id);
      if (!user.mfa_pending_secret) throw new BadRequestError("No MFA set-up in progress: call generate_mfa_secret first");
      const verified = await this.totpMatches(user.mfa_pending_secret, ctx.params.mfa_code);
      if (verified) {
        await this.setFields(user._id, { mfa_secret: user.mfa_pending_secret, mfa_pending_secret: null, mfa_last_step: null });
        this.logger.info("MFA enabled", { user_id: user._id });
        await this.credentialsChanged(user._id);
      }
      return { verified };
    },
  },
  /**
   * POST /api/data/save_mfa_secret {user_id, mfa_secret}: turns MFA on with a secret the client made and checked
   * itself (PinePods' web client's other set-up path). Base32 of at least 128 bits (26 characters; RFC 4226 section 4, R6);
   * the secret is never logged or answered.
   */
  save_mfa_secret: {
    params: {
      user_id: userId,
      mfa_secret: {
        type: "string",
        trim: true,
        min: 26,
        max: 160,
        pattern: /^[A-Za-z2-7\s]+=*$/,
        messages: { stringPattern: "mfa_secret must be base32 (A-Z, 2-7)" },
      },
    },
    response: SaveMfaSecretAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number; mfa_secret: string }>): Promise<Static<typeof SaveMfaSecretAnswer>> {
      const secret = ctx.params.mfa_secret.replace(/[\s=]/g, "").toUpperCase();
      if (secret.length < 26) throw new BadRequestError("mfa_secret must hold at least 26 base32 characters (128 bits)");
      const user: UserDoc = await this.getUser(ctx.params.user_id);
      await this.setFields(user._id, { mfa_secret: secret, mfa_pending_secret: null, mfa_last_step: null });
      this.logger.info("MFA enabled", { user_id: user._id, by: "save_mfa_secret" });
      await this.credentialsChanged(user._id);
      return { status: "success", detail: "MFA enabled" };
    },
  },
  verify_mfa: {
    params: mfaCodeParams,
    response: VerifiedAnswer,
    async handler(this: UsersThis, ctx: Ctx<CodeParams>): Promise<Static<typeof VerifiedAnswer>> {
      const user: UserDoc = await this.getUser(ctx.params.user_id);
      if (!user.mfa_secret) throw new BadRequestError("MFA is not enabled for this user");
      return { verified: await this.acceptActiveCode(user, ctx.params.mfa_code) };
    },
  },
  check_mfa_enabled: {
    idempotent: true,
    params: userIdParam,
    response: MfaEnabledAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof MfaEnabledAnswer>> {
      return { mfa_enabled: !!(await this.getUser(ctx.params.user_id)).mfa_secret };
    },
  },
  /** No body in the spec: the caller's own MFA, or user_id's (own, or any for an admin). */
  delete_mfa: {
    params: { user_id: { ...userId, optional: true } },
    response: DeleteMfaAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id?: number }>): Promise<Static<typeof DeleteMfaAnswer>> {
      const user: UserDoc = await this.getUser(ctx.params.user_id ?? ctx.meta.user!.id);
      await this.setFields(user._id, { mfa_secret: null, mfa_pending_secret: null });
      this.logger.info("MFA disabled", { user_id: user._id, by: ctx.meta.user?.id });
      await this.credentialsChanged(user._id);
      return { deleted: true, detail: "MFA disabled" };
    },
  },
};

export const mfaMethods: Pick<UsersMethods, "totpMatches" | "totpStep" | "acceptActiveCode"> = {
  async totpMatches(this: UsersThis, secret: string, code: string): Promise<boolean> {
    return (await this.totpStep(secret, code)) !== null;
  },
  /** The time step a code belongs to, or null; codes of steps up to afterStep are refused. */
  async totpStep(this: UsersThis, secret: string, code: string, afterStep?: number): Promise<number | null> {
    if (!/^\d{6}$/.test(code)) return null;
    const result = await verifyTotp({ secret, token: code, ...TOTP, epochTolerance: TOTP_SKEW_SECONDS, afterTimeStep: afterStep });
    return result.valid ? (result as { timeStep: number }).timeStep : null;
  },
  /**
   * A code for the active secret works once (RFC 6238 5.2): its time step is recorded, and the update
   * only succeeds while no same or later step was used, so two replicas cannot both accept it.
   */
  async acceptActiveCode(this: UsersThis, user: UserDoc, code: string): Promise<boolean> {
    const step = await this.totpStep(user.mfa_secret!, code, user.mfa_last_step ?? undefined);
    if (step === null) return false;
    const unused = { $or: [{ mfa_last_step: { $exists: false } }, { mfa_last_step: null }, { mfa_last_step: { $lt: step } }] };
    return (await this.adapter.updateMany({ _id: user._id, ...unused }, { $set: { mfa_last_step: step } })) > 0;
  },
};
