/**
 * THE route table: every documented "METHOD /path" -> the action it calls and its auth level
 * (none | optional | basic | key | admin | rss; see shared/types.ts). Paths are exactly those of
 * spec/podcast-server-api.md and spec/ROUTES.md; {name} is a path parameter.
 */
import type { RouteDef } from "../shared/types";

export const routes: Record<string, RouteDef> = {
  // Health, setup and login
  "GET /api/health": { action: "api.health", auth: "none" },
  "GET /api/service_check": { action: "api.service_check", auth: "none" },
  "GET /api/data/self_service_status": { action: "users.self_service_status", auth: "none" },
  "POST /api/data/create_first": { action: "users.create_first", auth: "none" },
  "GET /api/data/get_key": { action: "auth.get_key", auth: "basic" },
  "GET /api/data/verify_key": { action: "auth.verify_key", auth: "key" },
  "GET /api/data/get_user": { action: "auth.get_user", auth: "key" },
  "GET /api/data/config": { action: "api.config", auth: "key" },

  // Accounts
  "GET /api/data/user_details_id/{user_id}": { action: "users.user_details_id", auth: "key" },
  "GET /api/data/my_user_info/{user_id}": { action: "users.my_user_info", auth: "key" },
  "GET /api/data/first_login_done/{user_id}": { action: "users.first_login_done", auth: "key" },
  "GET /api/data/user_admin_check/{user_id}": { action: "users.user_admin_check", auth: "key" },
  "POST /api/data/add_login_user": { action: "users.add_login_user", auth: "optional" },
  "POST /api/data/add_user": { action: "users.add_user", auth: "admin" },

  // Server settings
  "POST /api/data/enable_disable_self_service": { action: "users.enable_disable_self_service", auth: "admin" },
  "POST /api/data/enable_disable_guest": { action: "users.enable_disable_guest", auth: "admin" },
  "GET /api/data/admin_self_service_status": { action: "users.admin_self_service_status", auth: "key" },

  // API keys
  "POST /api/data/create_api_key": { action: "auth.create_api_key", auth: "key" },
  "DELETE /api/data/delete_api_key": { action: "auth.delete_api_key", auth: "key" },
  "GET /api/data/get_api_info/{user_id}": { action: "auth.get_api_info", auth: "key" },
};

/** moleculer-web aliases ("METHOD /path/:param") built from the table; the auth level rides on the alias. */
export function toAliases(table: Record<string, RouteDef>): Record<string, RouteDef> {
  const aliases: Record<string, RouteDef> = {};
  for (const [key, def] of Object.entries(table)) aliases[key.replace(/\{(\w+)\}/g, ":$1")] = { ...def };
  return aliases;
}
