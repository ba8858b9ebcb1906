/**
 * The single ownership check (house rule 4, docs/architecture.md): an action whose params (or upload form fields) carry user_id answers 403 when
 * it is not the caller's id and the caller is not an admin. Calls without ctx.meta.user (service to
 * service, or open routes) are not restricted here: the gateway decides who reaches them.
 */
import type { ActionHandler, Context, Middleware } from "moleculer";
import { ForbiddenError } from "./errors";
import type { AuthUser } from "./types";

// Moleculer's Middleware type has no room for the `name` it reads (and logs): the one cast is at the end.
export const OwnershipMiddleware = {
  name: "Ownership",
  localAction(next: ActionHandler<unknown>) {
    return function ownership(ctx: Context<{ user_id?: unknown; pipe?: unknown } | null, { user?: AuthUser | null; $multipart?: { user_id?: unknown } }>) {
      const user = ctx.meta?.user;
      // A multipart upload's params are the file stream: its form fields carry user_id.
      const raw = typeof ctx.params?.pipe === "function" ? ctx.meta?.$multipart?.user_id : ctx.params?.user_id;
      if (user && raw !== undefined && raw !== null && raw !== "") {
        const id = Number(raw);
        // A non-numeric user_id is left to the param schema, which answers 400.
        // A rejection, not a throw: moleculer-web calls upload actions from a stream event, where a throw would escape.
        if (Number.isInteger(id) && id !== user.id && !user.isAdmin) return Promise.reject(new ForbiddenError("You can only access your own data"));
      }
      return next(ctx);
    };
  },
} as unknown as Middleware;
