/**
 * Accounts: the users collection (profile, settings, MFA secrets), custom themes, password-reset codes
 * and the server-wide settings (self-service, guest). Passwords are Argon2id hashes (shared/secrets.ts);
 * the auth service asks this one to verify them and to check MFA codes.
 */
import crypto from "crypto";
import type { ServiceSchema } from "moleculer";
import { DbMixin, isDuplicateKeyError } from "../shared/db.mixin";
import { config } from "../shared/config";
import { ConflictError, ForbiddenError, NotFoundError } from "../shared/errors";
import { passwordToStoredHash, verifyPassword } from "../shared/secrets";
import type { Ctx } from "../shared/service-types";
import type { OidcLoginParams, OidcLoginResult, UserAuthInfo, UserEvent, VerifiedLogin } from "../shared/contracts/users";
import { userCreated, userCredentialsChanged, userRightsChanged } from "../shared/contracts/users";
import { adminActions } from "./users.parts/admin.actions";
import { mfaActions, mfaMethods } from "./users.parts/mfa.actions";
import { passwordResetActions, passwordResetMethods } from "./users.parts/password-reset.actions";
import { preferencesActions, preferencesMethods } from "./users.parts/preferences.actions";
import { settingsActions } from "./users.parts/settings.actions";
import { LANGUAGES, newUserParams, ServerSettings, SETTING_DEFAULTS, userFields, userIdParam, UserDoc, mfaCodeParams } from "./users.parts/model";
import type { Settings, UsersThis } from "./users.parts/model";
import {
  AddUserAnswer,
  AdminCheckAnswer,
  AdminSelfServiceStatusAnswer,
  CreateFirstAnswer,
  FirstLoginAnswer,
  MyUserInfoAnswer,
  SelfServiceStatusAnswer,
  ToggleAnswer,
  UserDetailsAnswer,
} from "../shared/contracts/users";
import type { Static } from "../shared/contracts/answers";

/** A new account's fields (userFields), and its password (create_first: password; add_login_user and add_user: hash_pw, in clear). */
type NewUserParams = { fullname: string; username: string; email: string };

/** The server-wide settings as a first start stores them. */
const defaultServerSettings = (): ServerSettings => ({ _id: "server", self_service: config.selfServiceDefault, guest: false });

const UsersService: ServiceSchema<Record<string, never>, UsersThis> = {
  name: "users",
  mixins: [
    DbMixin(
      {
        name: "users",
        indexes: [
          { fields: { username: 1 }, unique: true },
          { fields: { email: 1 }, unique: true },
        ],
      },
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
      response: CreateFirstAnswer,
      async handler(this: UsersThis, ctx: Ctx<NewUserParams & { password: string }>): Promise<Static<typeof CreateFirstAnswer>> {
        if (await this.adminExists()) throw new ConflictError("An admin user already exists");
        const user = await this.createUser(ctx.params, ctx.params.password, true);
        return { message: "Admin user created successfully", user_id: user._id };
      },
    },
    self_service_status: {
      idempotent: true,
      params: {},
      response: SelfServiceStatusAnswer,
      async handler(this: UsersThis): Promise<Static<typeof SelfServiceStatusAnswer>> {
        const settings = await this.serverSettings();
        return { status: settings.self_service, first_admin_created: await this.adminExists() };
      },
    },
    /** Registration: open when self-service is on; otherwise only an admin may add users. */
    add_login_user: {
      params: newUserParams,
      response: AddUserAnswer,
      async handler(this: UsersThis, ctx: Ctx<NewUserParams & { hash_pw: string }>): Promise<Static<typeof AddUserAnswer>> {
        const settings = await this.serverSettings();
        if (!settings.self_service && !ctx.meta.user?.isAdmin) throw new ForbiddenError("Self-service registration is disabled");
        const user = await this.createUser(ctx.params, ctx.params.hash_pw, false);
        return { detail: "User added successfully", user_id: user._id };
      },
    },
    add_user: {
      params: newUserParams,
      response: AddUserAnswer,
      async handler(this: UsersThis, ctx: Ctx<NewUserParams & { hash_pw: string }>): Promise<Static<typeof AddUserAnswer>> {
        const user = await this.createUser(ctx.params, ctx.params.hash_pw, false);
        return { detail: "User added successfully", user_id: user._id };
      },
    },
    user_details_id: {
      idempotent: true,
      params: userIdParam,
      response: UserDetailsAnswer,
      async handler(this: UsersThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof UserDetailsAnswer>> {
        const u: UserDoc = await this.getUser(ctx.params.user_id);
        return { UserID: u._id, Fullname: u.fullname, Username: u.username, Email: u.email, Hashed_PW: null, Salt: null };
      },
    },
    my_user_info: {
      idempotent: true,
      params: userIdParam,
      response: MyUserInfoAnswer,
      async handler(this: UsersThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof MyUserInfoAnswer>> {
        const u: UserDoc = await this.getUser(ctx.params.user_id);
        const s = this.settingsOf(u);
        return {
          userid: u._id,
          fullname: u.fullname,
          username: u.username,
          email: u.email,
          isadmin: u.isadmin ? 1 : 0,
          timezone: s.timezone,
          timeformat: s.hour_pref,
          dateformat: s.date_format,
          language: this.languageOf(u),
          startpage: s.start_page,
          default_volume: s.default_volume,
        };
      },
    },
    first_login_done: {
      idempotent: true,
      params: userIdParam,
      response: FirstLoginAnswer,
      async handler(this: UsersThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof FirstLoginAnswer>> {
        const u: UserDoc = await this.getUser(ctx.params.user_id);
        return { FirstLogin: u.first_login };
      },
    },
    user_admin_check: {
      idempotent: true,
      params: userIdParam,
      response: AdminCheckAnswer,
      async handler(this: UsersThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof AdminCheckAnswer>> {
        const u: UserDoc = await this.getUser(ctx.params.user_id);
        return { is_admin: u.isadmin };
      },
    },
    enable_disable_self_service: {
      params: {},
      response: ToggleAnswer,
      async handler(this: UsersThis): Promise<Static<typeof ToggleAnswer>> {
        const status = await this.toggleSetting("self_service");
        return { success: true, status, detail: `Self-service registration ${status ? "enabled" : "disabled"}` };
      },
    },
    enable_disable_guest: {
      params: {},
      response: ToggleAnswer,
      async handler(this: UsersThis): Promise<Static<typeof ToggleAnswer>> {
        const status = await this.toggleSetting("guest");
        return { success: true, status, detail: `Guest access ${status ? "enabled" : "disabled"}` };
      },
    },
    admin_self_service_status: {
      idempotent: true,
      params: {},
      response: AdminSelfServiceStatusAnswer,
      async handler(this: UsersThis): Promise<Static<typeof AdminSelfServiceStatusAnswer>> {
        const settings = await this.serverSettings();
        return { status: settings.self_service };
      },
    },

    ...settingsActions,
    ...preferencesActions,
    ...adminActions,
    ...mfaActions,
    ...passwordResetActions,

    // --- Internal actions (not in the route table) ---

    /**
     * OIDC login (oidc service): the account with this email (linked), else a new one with a unique
     * lower-cased username and a random password nobody knows. The provider's admin role grants admin;
     * it never takes it away (that stays set_isadmin's job, so a linked admin is never locked out).
     */
    oidc_login: {
      visibility: "public",
      params: { email: { type: "email", max: 255 }, username: { type: "string", max: 255 }, fullname: { type: "string", max: 255 }, grant_admin: "boolean" },
      async handler(this: UsersThis, ctx: Ctx<OidcLoginParams>): Promise<OidcLoginResult> {
        const { fullname, grant_admin } = ctx.params;
        const email = ctx.params.email.toLowerCase();
        let user: UserDoc | null = await this.adapter.findOne({ email });
        let created = false;
        const base =
          ctx.params.username
            .toLowerCase()
            .replace(/[\s:]+/g, "_")
            .slice(0, 56) || email.split("@")[0].slice(0, 56);
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
          await userRightsChanged.broadcast(this.broker, { user_id: user._id });
          this.logger.info("admin granted by oidc role", { user_id: user._id });
        }
        return { user_id: user._id, created };
      },
    },
    /** Checks a clear password against the stored hash. Null for unknown user or wrong password. */
    verify_password: {
      visibility: "public",
      params: { username: "string", password: "string" },
      async handler(this: UsersThis, ctx: Ctx<{ username: string; password: string }>): Promise<VerifiedLogin | null> {
        const user: UserDoc | null = await this.adapter.findOne({ username: ctx.params.username.toLowerCase() });
        const ok = await verifyPassword(user?.hashed_pw, ctx.params.password);
        return ok && user ? { user_id: user._id, mfa_enabled: !!user.mfa_secret } : null;
      },
    },
    /** Key owners, batched: what the auth service needs to build ctx.meta.user. */
    get_auth_info: {
      visibility: "public",
      params: { user_ids: { type: "array", items: "number" } },
      async handler(this: UsersThis, ctx: Ctx<{ user_ids: number[] }>): Promise<UserAuthInfo[]> {
        const users: UserDoc[] = await this.adapter.find({ query: { _id: { $in: ctx.params.user_ids } } });
        return users.map((u) => ({ id: u._id, isAdmin: !!u.isadmin, username: u.username, syncServer: u.sync_server !== false }));
      },
    },
    /** Every account's id: for work done once per user (update_playlists). */
    user_ids: {
      visibility: "public",
      async handler(this: UsersThis): Promise<number[]> {
        const users: UserDoc[] = await this.adapter.find({});
        return users.map((u) => u._id);
      },
    },
    /** The second login step (auth.verify_mfa_and_get_key): does the code match the user's active secret? */
    check_mfa_code: {
      visibility: "public",
      params: mfaCodeParams,
      async handler(this: UsersThis, ctx: Ctx<{ user_id: number; mfa_code: string }>): Promise<boolean> {
        const user: UserDoc | null = await this.adapter.findOne({ _id: ctx.params.user_id });
        return !!user?.mfa_secret && (await this.acceptActiveCode(user, ctx.params.mfa_code));
      },
    },
  },
  methods: {
    ...mfaMethods,
    ...passwordResetMethods,
    ...preferencesMethods,
    async getUser(this: UsersThis, id: number): Promise<UserDoc> {
      const user = await this.adapter.findOne({ _id: id });
      if (!user) throw new NotFoundError("User not found");
      return user;
    },
    async adminExists(this: UsersThis): Promise<boolean> {
      return (await this.adminCount()) > 0;
    },
    async adminCount(this: UsersThis): Promise<number> {
      return this.adapter.count({ query: { isadmin: true } });
    },
    /**
     * Updates an existing user; 404 for an unknown id. On MongoDB updateMany counts modified documents,
     * so 0 also means "already had these values": only a missing user is a 404.
     */
    async setFields(this: UsersThis, id: number, fields: Partial<UserDoc>): Promise<void> {
      const changed = await this.adapter.updateMany({ _id: id }, { $set: fields });
      if (!changed) await this.getUser(id);
    },
    /** Username or email change: 409 when another account has the value (the unique index settles races). */
    async setUniqueField(this: UsersThis, id: number, field: "username" | "email", value: string): Promise<void> {
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
    settingsOf(this: UsersThis, user: UserDoc): Settings {
      const s: Settings = { ...SETTING_DEFAULTS };
      const set = <K extends keyof Settings>(key: K, value: Settings[K] | undefined) => {
        if (value !== undefined && value !== null) s[key] = value;
      };
      for (const key of Object.keys(s) as (keyof Settings)[]) set(key, user[key]);
      return s;
    },
    async createUser(this: UsersThis, p: { fullname: string; username: string; email: string }, password: string, isadmin: boolean): Promise<UserDoc> {
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
      // Services that give every account something (system playlists) add theirs.
      const created: UserEvent = { user_id: doc._id };
      await userCreated.emit(this.broker, created);
      return doc;
    },
    /** The password or MFA changed: the auth service ends the user's sync sessions opened with the old ones. */
    async credentialsChanged(this: UsersThis, userId: number): Promise<void> {
      const event: UserEvent = { user_id: userId };
      await userCredentialsChanged.emit(this.broker, event);
    },
    async assertUnique(this: UsersThis, username: string, email: string): Promise<void> {
      if (await this.adapter.findOne({ username })) throw new ConflictError("Username already exists");
      if (await this.adapter.findOne({ email })) throw new ConflictError("Email already exists");
    },
    async serverSettings(this: UsersThis): Promise<ServerSettings> {
      // Stored at the first start (started); the defaults stand in should the record be missing.
      return (await this.stores.server_settings.findOne({ _id: "server" })) ?? defaultServerSettings();
    },
    async toggleSetting(this: UsersThis, field: "self_service" | "guest"): Promise<boolean> {
      const current = await this.serverSettings();
      await this.stores.server_settings.updateMany({ _id: "server" }, { $set: { [field]: !current[field] } });
      return !current[field];
    },
  },
  async started(this: UsersThis) {
    if (!LANGUAGES.some((l) => l.code === config.defaultLanguage)) {
      throw new Error(`DEFAULT_LANGUAGE "${config.defaultLanguage}" is not one of ${LANGUAGES.map((l) => l.code).join(", ")}`);
    }
    const defaults: ServerSettings = defaultServerSettings();
    try {
      await this.stores.server_settings.insert(defaults);
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err; // already there from an earlier start
    }
  },
};

export default UsersService;
