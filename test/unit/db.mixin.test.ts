import { ServiceBroker } from "moleculer";
import { config } from "../../shared/config";
import { DbMixin } from "../../shared/db.mixin";
import { tempDir } from "../helpers/server";

describe("db mixin on the embedded store", () => {
  test("nextId hands out unique, increasing int32 ids under concurrency and keeps counting after a restart", async () => {
    config.dataDir = tempDir();
    const schema = { name: "things", mixins: [DbMixin({ name: "things" }, [{ name: "others" }])] };
    let broker = new ServiceBroker({ logger: false });
    let svc: any = broker.createService(schema);
    await broker.start();
    const ids: number[] = await Promise.all(Array.from({ length: 200 }, () => svc.nextId("things")));
    expect(new Set(ids).size).toBe(200);
    expect(Math.min(...ids)).toBe(1);
    expect(Math.max(...ids)).toBe(200);
    expect(await svc.nextId("others")).toBe(1); // sequences are independent
    await broker.stop();

    broker = new ServiceBroker({ logger: false });
    svc = broker.createService(schema);
    await broker.start();
    expect(await svc.nextId("things")).toBe(201);
    await broker.stop();
  });

  test("a second instance on the same data files refuses to start", async () => {
    config.dataDir = tempDir();
    const schema = { name: "locked", mixins: [DbMixin({ name: "locked" })] };
    const a = new ServiceBroker({ logger: false });
    a.createService(schema);
    await a.start();
    const b = new ServiceBroker({ logger: false });
    b.createService({ ...schema });
    await expect(b.start()).rejects.toThrow(/is in use by/);
    await a.stop();
    // Once the first one stopped, the files are free again.
    const c = new ServiceBroker({ logger: false });
    c.createService({ ...schema });
    await c.start();
    await c.stop();
  });

  test("moleculer-db's generic CRUD actions are not published", async () => {
    config.dataDir = tempDir();
    const broker = new ServiceBroker({ logger: false });
    broker.createService({ name: "crud", mixins: [DbMixin({ name: "crud" })] });
    await broker.start();
    await expect(broker.call("crud.find", {})).rejects.toThrow(/not found/i);
    await expect(broker.call("crud.db_health", {})).resolves.toEqual({ ok: true });
    await broker.stop();
  });

  test("backup_export / backup_import carry every collection with ids, dates and counters; counters only move up", async () => {
    const schema = { name: "saved", mixins: [DbMixin({ name: "items" }, [{ name: "extras" }])] };
    const read = async (stream: NodeJS.ReadableStream) => {
      let text = "";
      for await (const chunk of stream) text += chunk.toString();
      return text.split("\n").filter(Boolean);
    };
    config.dataDir = tempDir();
    const a = new ServiceBroker({ logger: false });
    const from: any = a.createService(schema);
    await a.start();
    const when = new Date("2026-01-02T03:04:05.678Z");
    await from.adapter.insert({ _id: await from.nextId("items"), at: when, nested: { list: [when, "x"] } });
    await from.adapter.insert({ _id: await from.nextId("items"), at: null });
    await from.stores.extras.insert({ _id: "key", value: 1 });
    const lines = await read(await a.call("saved.backup_export", {}));
    expect(lines.map((l) => JSON.parse(l).collection)).toEqual(["items", "items", "extras", "counters"]);
    await a.stop();

    config.dataDir = tempDir();
    const b = new ServiceBroker({ logger: false });
    const to: any = b.createService(schema);
    await b.start();
    await to.nextId("items"); // a record of a first start: a restore clears first
    await b.call("saved.backup_clear", {});
    expect(await b.call("saved.backup_counts", {})).toEqual({ items: 0, extras: 0, counters: 0 });
    await to.adapter.insert({ _id: 2, written: "meanwhile" }); // a running server's write racing the restore: the backup's record wins
    await b.call("saved.backup_import", { lines });
    expect(await to.adapter.findById(2)).toEqual({ _id: 2, at: null });
    const restored = await to.adapter.findById(1);
    expect(restored).toEqual({ _id: 1, at: when, nested: { list: [when, "x"] } });
    expect(restored.at).toBeInstanceOf(Date);
    expect(await to.stores.extras.findById("key")).toEqual({ _id: "key", value: 1 });
    expect(await to.nextId("items")).toBe(3); // continues after the restored ids
    await b.call("saved.backup_import", { lines: lines.filter((l) => JSON.parse(l).collection === "counters") });
    expect(await to.nextId("items")).toBe(4); // an older counter does not move it back
    await expect(b.call("saved.backup_import", { lines: [JSON.stringify({ service: "other", collection: "items", doc: { _id: 9 } })] })).rejects.toThrow(
      /not for a collection/,
    );
    await b.stop();
  });
});
