import { ServiceBroker } from "moleculer";
import { config } from "../../shared/config";
import { DbMixin } from "../../shared/db.mixin";
import { ensureLease, LeaseFields, releaseLease, takeLease } from "../../shared/lease";

describe("shared/lease on the embedded store", () => {
  let broker: ServiceBroker;
  let store: any;
  beforeAll(async () => {
    config.dataDir = ":memory:";
    broker = new ServiceBroker({ logger: false });
    store = broker.createService({ name: "leases", mixins: [DbMixin({ name: "leases" })] }) as any;
    await broker.start();
    store = store.adapter;
  });
  afterAll(() => broker.stop());
  const doc = (id: string | number) => store.findOne({ _id: id });
  const expire = (id: string, field = "expires_at") => store.updateMany({ _id: id }, { $set: { [field]: new Date(Date.now() - 1000) } });

  test("ensureLease inserts a free lease once, keeping what is there", async () => {
    await Promise.all([ensureLease(store, "a", { last_run_at: null }), ensureLease(store, "a", { last_run_at: null })]);
    expect(await doc("a")).toMatchObject({ holder: null, expires_at: new Date(0), last_run_at: null });
    expect(await takeLease(store, "a", "one", 30, { renew: true })).toBe(true);
    await ensureLease(store, "a");
    expect((await doc("a")).holder).toBe("one");
  });

  test("of two holders racing for a free lease exactly one wins, until it expires", async () => {
    await ensureLease(store, "race");
    const won = await Promise.all(["x", "y", "x2", "y2"].map((h) => takeLease(store, "race", h, 30, { renew: true })));
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = ["x", "y", "x2", "y2"][won.indexOf(true)];
    const { holder, expires_at } = await doc("race");
    expect(holder).toBe(winner);
    expect(new Date(expires_at).getTime()).toBeGreaterThan(Date.now() + 25_000);
    expect(await takeLease(store, "race", "other", 30, { renew: true })).toBe(false);
    await expire("race");
    expect(await takeLease(store, "race", "other", 30, { renew: true })).toBe(true);
    expect((await doc("race")).holder).toBe("other");
  });

  test("renew lets the holder extend its lease; without renew it cannot take it again before expiry", async () => {
    await ensureLease(store, "r");
    expect(await takeLease(store, "r", "me", 10, { renew: true })).toBe(true);
    const first = new Date((await doc("r")).expires_at).getTime();
    expect(await takeLease(store, "r", "me", 60, { renew: true })).toBe(true);
    expect(new Date((await doc("r")).expires_at).getTime()).toBeGreaterThan(first);

    await ensureLease(store, "n");
    expect(await takeLease(store, "n", "me", 30, { renew: false })).toBe(true);
    expect(await takeLease(store, "n", "me", 30, { renew: false })).toBe(false);
    await expire("n");
    expect(await takeLease(store, "n", "me", 30, { renew: false })).toBe(true);
  });

  test("release frees only the holder's lease; a null holder frees it whoever holds it", async () => {
    await ensureLease(store, "rel");
    expect(await takeLease(store, "rel", "me", 30, { renew: true })).toBe(true);
    await releaseLease(store, "rel", "someone else");
    expect(await takeLease(store, "rel", "other", 30, { renew: true })).toBe(false);
    await releaseLease(store, "rel", "me");
    expect(await doc("rel")).toMatchObject({ holder: null, expires_at: new Date(0) });
    expect(await takeLease(store, "rel", "other", 30, { renew: true })).toBe(true);
    await releaseLease(store, "rel", null);
    expect((await doc("rel")).holder).toBeNull();
  });

  test("works on other field names of an existing record and never creates a missing one", async () => {
    const fields: LeaseFields = { holder: "lease_owner", until: "lease_until" };
    await store.insert({ _id: 7, name: "account", lease_owner: null, lease_until: new Date(0) });
    expect(await takeLease(store, 7, "node-1", 30, { renew: false, fields })).toBe(true);
    expect(await takeLease(store, 7, "node-2", 30, { renew: false, fields })).toBe(false);
    expect(await doc(7)).toMatchObject({ name: "account", lease_owner: "node-1" });
    await releaseLease(store, 7, "node-1", fields);
    expect(await doc(7)).toMatchObject({ lease_owner: null, lease_until: new Date(0) });
    expect(await takeLease(store, 8, "node-1", 30, { renew: false, fields })).toBe(false);
    expect(await doc(8)).toBeNull();
  });
});
