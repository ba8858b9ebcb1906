/**
 * A lease on one store record: whoever sets its holder field while the lease is expired holds it until
 * the expiry field. Taking is one updateMany with an $or (expired, or already ours when renewing), so
 * two replicas racing on NeDB or MongoDB cannot both win: the store applies the update to the record
 * atomically and answers how many records changed. The record must exist; ensureLease inserts it,
 * tolerating another replica having done so first.
 *
 * Users: the feeds and backups schedulers (renewed on every beat) and the per-user sync lease on the
 * account record (not renewable: a second sync of the same user by the same replica is refused too).
 */
import { isDuplicateKeyError } from "./db.mixin";

/** The part of a moleculer-db adapter a lease needs (NeDB and MongoDB adapters both answer a count). */
export interface LeaseStore {
  insert(doc: object): Promise<unknown>;
  updateMany(query: object, update: object): Promise<number>;
}

/** Names of the holder and expiry fields in the record. */
export interface LeaseFields {
  holder: string;
  until: string;
}

export const SCHEDULER_LEASE: LeaseFields = { holder: "holder", until: "expires_at" };

export interface LeaseOptions {
  /** Whether the current holder may extend its own unexpired lease. */
  renew: boolean;
  fields?: LeaseFields;
}

/** Inserts the record as a free lease (plus `extra` fields) unless it is there already. */
export async function ensureLease(store: LeaseStore, id: string | number, extra: object = {}, fields: LeaseFields = SCHEDULER_LEASE): Promise<void> {
  try {
    await store.insert({ _id: id, [fields.holder]: null, [fields.until]: new Date(0), ...extra });
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err; // another replica, or an earlier start, inserted it
  }
}

/** Takes (or, with renew, extends) the lease for `seconds`; true when `holder` holds it now. */
export async function takeLease(store: LeaseStore, id: string | number, holder: string, seconds: number, opts: LeaseOptions): Promise<boolean> {
  const { holder: holderField, until } = opts.fields ?? SCHEDULER_LEASE;
  const now = new Date();
  const expired = { [until]: { $lt: now } };
  const query = opts.renew ? { _id: id, $or: [expired, { [holderField]: holder }] } : { _id: id, ...expired };
  const taken = await store.updateMany(query, { $set: { [holderField]: holder, [until]: new Date(now.getTime() + seconds * 1000) } });
  return taken > 0;
}

/** Frees the lease at once when `holder` holds it; a null holder frees it whoever holds it. */
export async function releaseLease(store: LeaseStore, id: string | number, holder: string | null, fields: LeaseFields = SCHEDULER_LEASE): Promise<void> {
  const query = holder === null ? { _id: id } : { _id: id, [fields.holder]: holder };
  await store.updateMany(query, { $set: { [fields.holder]: null, [fields.until]: new Date(0) } });
}
