/**
 * The user.removed event (emitted by the users service once an account is gone: each service deletes that
 * user's data). A service names the stores holding a user's records and how to find them there, so the
 * event, its params and the removal are written once.
 */
import type { Service } from "moleculer";
import type { Ctx, Query, Store } from "./service-types";
import type { UserEvent } from "./contracts/users";

/**
 * A user's records per store of a service: "adapter" (the main collection) or a name in this.stores,
 * mapped to the field holding the user id, or to the query of the user's records. Removed in this order.
 */
export type UserData = Record<string, string | ((user_id: number) => Query)>;

/** What the removal needs of a service: its stores (the db mixin's). */
type WithStores = Service & { adapter: Store<object>; stores: Record<string, Store<object>> };

/**
 * A service's own steps around the removal (stop a timer, drop a cache, run it in the user's queue):
 * it calls removeData where the records must go.
 */
export type AroundRemoval<S extends WithStores = WithStores> = (this: S, user_id: number, removeData: () => Promise<void>) => Promise<void> | void;

async function removeUserData(service: WithStores, user_id: number, where: UserData): Promise<void> {
  for (const [name, by] of Object.entries(where)) {
    const store = name === "adapter" ? service.adapter : service.stores[name];
    if (!store) throw new Error(`${service.name}: no store ${name} holds user data`);
    await store.removeMany(typeof by === "string" ? { [by]: user_id } : by(user_id));
  }
}

/** The service's user.removed event handler: the user's records leave these stores, within `around` when given. */
export function userRemovedEvent<S extends WithStores>(where: UserData, around?: AroundRemoval<S>) {
  return {
    params: { user_id: "number" },
    async handler(this: S, ctx: Ctx<UserEvent>) {
      const { user_id } = ctx.params;
      const removeData = () => removeUserData(this, user_id, where);
      if (around) await around.call(this, user_id, removeData);
      else await removeData();
    },
  };
}
