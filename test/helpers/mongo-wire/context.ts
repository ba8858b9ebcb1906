/** What a command handler is given: the store, the command's database and body, and the connection. */
import type net from "net";
import { CommandError } from "./errors";
import type { Store } from "./store";
import type { Doc } from "./types";

export interface Conn {
  id: number;
  socket: net.Socket;
}

export interface Ctx {
  store: Store;
  db: string;
  body: Doc;
  conn: Conn;
}

/** A command: its answer, or a thrown CommandError (the dispatcher turns it into an `ok: 0` answer). */
export type Handler = (ctx: Ctx) => Doc;

/** The collection named by a command's `field` (the command name itself for most commands). */
export function collName(ctx: Ctx, field: string): string {
  const name = ctx.body[field];
  if (typeof name !== "string" || !name) throw new CommandError(73, "InvalidNamespace", `collection name has invalid type ${typeof name}`);
  return name;
}
