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
});
