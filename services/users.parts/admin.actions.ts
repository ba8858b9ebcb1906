/**
 * Administration of accounts (admin routes): admin flag, deletion, the last-admin check.
 */
import type { ServiceActionsSchema } from "moleculer";
import { ConflictError } from "../../shared/errors";
import type { Ctx } from "../../shared/service-types";
import type { UserEvent } from "../../shared/contracts/users";
import { userRemoved, userRightsChanged } from "../../shared/contracts/users";
import { DetailAnswer } from "../../shared/contracts/answers";
import type { Static } from "../../shared/contracts/answers";
import { userId, userIdParam, UserDoc } from "./model";
import type { UsersThis } from "./model";
import { DeleteUserAnswer, FinalAdminAnswer, UserInfoAnswer } from "../../shared/contracts/users";

export const adminActions: ServiceActionsSchema = {
  set_isadmin: {
    params: { user_id: userId, isadmin: { type: "boolean", convert: true } },
    response: DetailAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number; isadmin: boolean }>): Promise<Static<typeof DetailAnswer>> {
      const user: UserDoc = await this.getUser(ctx.params.user_id);
      if (user.isadmin && !ctx.params.isadmin && (await this.adminCount()) <= 1) throw new ConflictError("The last admin cannot lose admin rights");
      await this.setFields(user._id, { isadmin: ctx.params.isadmin });
      // Cached key lookups carry the admin flag; every auth node drops them.
      const event: UserEvent = { user_id: user._id };
      await userRightsChanged.broadcast(this.broker, event);
      this.logger.info("admin flag changed", { user_id: user._id, isadmin: ctx.params.isadmin, by: ctx.meta.user?.id });
      return { detail: "Admin status updated" };
    },
  },
  /** Removes the account here; every other service removes its data on the user.removed event. */
  delete_user: {
    params: userIdParam,
    response: DeleteUserAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof DeleteUserAnswer>> {
      const user: UserDoc = await this.getUser(ctx.params.user_id);
      if (user.isadmin && (await this.adminCount()) <= 1) throw new ConflictError("The last admin cannot be deleted");
      await this.adapter.removeMany({ _id: user._id });
      await this.stores.custom_themes.removeMany({ user_id: user._id });
      await this.stores.password_resets.removeMany({ user_id: user._id });
      const event: UserEvent = { user_id: user._id };
      // Every auth node drops cached key lookups at once (the user no longer resolves); then each service deletes its data.
      await userRightsChanged.broadcast(this.broker, event);
      await userRemoved.emit(ctx, event);
      this.logger.info("user removed", { user_id: user._id, by: ctx.meta.user?.id });
      return { status: "success", detail: "User deleted" };
    },
  },
  /** GET /api/data/get_user_info: every account, by id, as the web client's user list reads them (never a password or MFA secret). */
  get_user_info: {
    idempotent: true,
    params: {},
    response: UserInfoAnswer,
    async handler(this: UsersThis): Promise<Static<typeof UserInfoAnswer>> {
      const users: UserDoc[] = await this.adapter.find({ query: {}, sort: ["_id"] });
      return users.map((u) => ({ userid: u._id, fullname: u.fullname, username: u.username, email: u.email, isadmin: u.isadmin ? 1 : 0 }));
    },
  },
  final_admin: {
    idempotent: true,
    params: userIdParam,
    response: FinalAdminAnswer,
    async handler(this: UsersThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof FinalAdminAnswer>> {
      const user: UserDoc = await this.getUser(ctx.params.user_id);
      return { final_admin: !!user.isadmin && (await this.adminCount()) === 1 };
    },
  },
};
