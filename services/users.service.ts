/**
 * Accounts: the users collection and the server-wide settings (self-service, guest).
 * Passwords are Argon2id hashes (shared/secrets.ts); the auth service asks this one to verify them.
 */
import type { Context, ServiceSchema } from "moleculer";
import { DbMixin, isDuplicateKeyError } from "../shared/db.mixin";
import { config } from "../shared/config";
import { ConflictError, ForbiddenError, NotFoundError } from "../shared/errors";
import { passwordToStoredHash, verifyPassword } from "../shared/secrets";
import type { AuthUser, UserAuthInfo, VerifiedLogin } from "../shared/types";

/** A stored account. */
export interface UserDoc {
  _id: number;
  username: string;
  email: string;
  fullname: string;
  hashed_pw: string;
  isadmin: boolean;
  first_login: boolean;
  mfa_secret: string | null;
  created_at: Date;
}

interface ServerSettings {
  _id: "server";
  self_service: boolean;
  guest: boolean;
}

const userFields = {
  fullname: { type: "string", trim: true, min: 1, max: 255 },
  username: { type: "string", trim: true, min: 1, max: 64, pattern: /^[^\s:]+$/, messages: { stringPattern: "The 'username' may not contain spaces or ':'" } },
  email: { type: "email", max: 255 },
};
const newUserParams = { ...userFields, hash_pw: { type: "string", min: 1, max: 1024 } };
const userIdParam = { user_id: { type: "number", integer: true, positive: true, convert: true } };

const UsersService: ServiceSchema = {
  name: "users",
  mixins: [
    DbMixin(
      { name: "users", indexes: [{ fields: { username: 1 }, unique: true }, { fields: { email: 1 }, unique: true }] },
      [{ name: "server_settings" }],
    ),
  ],
  actions: {
    create_first: {
      params: { ...userFields, password: { type: "string", min: 1, max: 1024 } },
      async handler(this: any, ctx: Context<any>) {
        if (await this.adminExists()) throw new ConflictError("An admin user already exists");
        const user = await this.createUser(ctx.params, ctx.params.password, true);
        return { message: "Admin user created successfully", user_id: user._id };
      },
    },
    self_service_status: {
      params: {},
      async handler(this: any) {
        const settings = await this.serverSettings();
        return { status: settings.self_service, first_admin_created: await this.adminExists() };
      },
    },
    /** Registration: open when self-service is on; otherwise only an admin may add users. */
    add_login_user: {
      params: newUserParams,
      async handler(this: any, ctx: Context<any, { user?: AuthUser }>) {
        const settings = await this.serverSettings();
        if (!settings.self_service && !ctx.meta.user?.isAdmin) throw new ForbiddenError("Self-service registration is disabled");
        const user = await this.createUser(ctx.params, ctx.params.hash_pw, false);
        return { detail: "User added successfully", user_id: user._id };
      },
    },
    add_user: {
      params: newUserParams,
      async handler(this: any, ctx: Context<any>) {
        const user = await this.createUser(ctx.params, ctx.params.hash_pw, false);
        return { detail: "User added successfully", user_id: user._id };
      },
    },
    user_details_id: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        const u: UserDoc = await this.getUser(ctx.params.user_id);
        return { UserID: u._id, Fullname: u.fullname, Username: u.username, Email: u.email, Hashed_PW: null, Salt: null };
      },
    },
    my_user_info: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        const u: UserDoc = await this.getUser(ctx.params.user_id);
        return { userid: u._id, fullname: u.fullname, username: u.username, email: u.email, isadmin: u.isadmin ? 1 : 0 };
      },
    },
    first_login_done: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        const u: UserDoc = await this.getUser(ctx.params.user_id);
        return { FirstLogin: u.first_login };
      },
    },
    user_admin_check: {
      params: userIdParam,
      async handler(this: any, ctx: Context<any>) {
        const u: UserDoc = await this.getUser(ctx.params.user_id);
        return { is_admin: u.isadmin };
      },
    },
    enable_disable_self_service: {
      params: {},
      async handler(this: any) {
        const status = await this.toggleSetting("self_service");
        return { success: true, status, detail: `Self-service registration ${status ? "enabled" : "disabled"}` };
      },
    },
    enable_disable_guest: {
      params: {},
      async handler(this: any) {
        const status = await this.toggleSetting("guest");
        return { success: true, status, detail: `Guest access ${status ? "enabled" : "disabled"}` };
      },
    },
    admin_self_service_status: {
      params: {},
      async handler(this: any) {
        const settings = await this.serverSettings();
        return { status: settings.self_service };
      },
    },

    // --- Internal actions (not in the route table) ---

    /** Checks a clear password against the stored hash. Null for unknown user or wrong password. */
    verify_password: {
      visibility: "public",
      params: { username: "string", password: "string" },
      async handler(this: any, ctx: Context<any>): Promise<VerifiedLogin | null> {
        const user: UserDoc | null = await this.adapter.findOne({ username: ctx.params.username.toLowerCase() });
        const ok = await verifyPassword(user?.hashed_pw, ctx.params.password);
        return ok && user ? { user_id: user._id, mfa_enabled: !!user.mfa_secret } : null;
      },
    },
    /** Key owners, batched: what the auth service needs to build ctx.meta.user. */
    get_auth_info: {
      visibility: "public",
      params: { user_ids: { type: "array", items: "number" } },
      async handler(this: any, ctx: Context<any>): Promise<UserAuthInfo[]> {
        const users: UserDoc[] = await this.adapter.find({ query: { _id: { $in: ctx.params.user_ids } } });
        return users.map((u) => ({ id: u._id, isAdmin: !!u.isadmin, username: u.username }));
      },
    },
  },
  methods: {
    async getUser(this: any, id: number): Promise<UserDoc> {
      const user = await this.adapter.findOne({ _id: id });
      if (!user) throw new NotFoundError("User not found");
      return user;
    },
    async adminExists(this: any): Promise<boolean> {
      return (await this.adapter.count({ query: { isadmin: true } })) > 0;
    },
    async createUser(this: any, p: { fullname: string; username: string; email: string }, password: string, isadmin: boolean): Promise<UserDoc> {
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
      try {
        await this.adapter.insert(doc);
      } catch (err) {
        // Two registrations racing past assertUnique: the unique index decides.
        if (isDuplicateKeyError(err)) throw new ConflictError("Username or email already exists");
        throw err;
      }
      this.logger.info("user created", { user_id: doc._id, isadmin });
      return doc;
    },
    async assertUnique(this: any, username: string, email: string) {
      if (await this.adapter.findOne({ username })) throw new ConflictError("Username already exists");
      if (await this.adapter.findOne({ email })) throw new ConflictError("Email already exists");
    },
    async serverSettings(this: any): Promise<ServerSettings> {
      return this.stores.server_settings.findOne({ _id: "server" });
    },
    async toggleSetting(this: any, field: "self_service" | "guest"): Promise<boolean> {
      const current = await this.serverSettings();
      await this.stores.server_settings.updateMany({ _id: "server" }, { $set: { [field]: !current[field] } });
      return !current[field];
    },
  },
  async started(this: any) {
    const defaults: ServerSettings = { _id: "server", self_service: config.selfServiceDefault, guest: false };
    try {
      await this.stores.server_settings.insert(defaults);
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err; // already there from an earlier start
    }
  },
};

export default UsersService;
