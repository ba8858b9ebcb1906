/**
 * Large params and answers between nodes (shared/message-pieces.middleware.ts), on Moleculer's in-process
 * transporter with this project's broker options: every packet stays under NATS's default max_payload
 * (1 MB) while the action, its param validation and the caller see the values whole; a retry sends the
 * params again; streams and calls inside one node pass untouched; and the gateway's test-time answer
 * check holds a large answer from another node against its route's response schema.
 */
import crypto from "crypto";
import { Readable } from "stream";
import { Errors, ServiceBroker, type BrokerOptions, type Context } from "moleculer";
import brokerConfig from "../../moleculer.config";
import ApiService from "../../services/api.service";
import { Type } from "../../shared/contracts/answers";
import { MessagePiecesMiddleware, PIECE_CHARS } from "../../shared/message-pieces.middleware";
import { api } from "../helpers/client";
import { plainSchema } from "../helpers/schema";
import { startServer, TestServer } from "../helpers/server";

const NATS_DEFAULT_MAX_PAYLOAD = 1024 * 1024;
const namespace = `pieces-${process.pid}-${Date.now()}`;
/** Every packet any node of this file sends over the transporter, by size. */
const packets: number[] = [];
const packetSizes = {
  name: "PacketSizes",
  transporterSend: (next: any) => (topic: string, data: Buffer, meta: object) => {
    packets.push(data.length);
    return next(topic, data, meta);
  },
};
const options = (nodeID: string): BrokerOptions => ({
  ...brokerConfig,
  namespace,
  transporter: "Fake",
  nodeID,
  logger: false,
  middlewares: [...brokerConfig.middlewares!, packetSizes as any],
});

/** 20,000 episode-action-like items with non-ASCII text, a phone's first sync: ~2 MB of JSON. */
const items = Array.from({ length: 20_000 }, (_, n) => ({ n, title: `Épisode ${n} — 🎧 «listen»`, url: `http://feeds.example/${n}.mp3` }));
const blob = crypto.randomBytes(3 * 1024 * 1024);
const sent = () => packets.reduce((a, b) => a + b, 0);

let front: ServiceBroker;
let work: ServiceBroker;
let flakyCalls = 0;
const metaSeen: Record<string, unknown>[] = [];

beforeAll(async () => {
  front = new ServiceBroker(options("front"));
  work = new ServiceBroker(options("work"));
  front.createService({
    name: "front",
    actions: {
      /** Called back by the work node from inside an action that got its params in pieces. */
      meta: { handler: (ctx: Context) => Object.keys(ctx.meta) },
    },
  });
  work.createService({
    name: "bulk",
    actions: {
      count: {
        params: { items: { type: "array", items: { type: "object", props: { n: "number" } } } },
        handler(ctx: Context<{ items: { n: number }[] }>) {
          metaSeen.push({ ...ctx.meta });
          return { count: ctx.params.items.length, last: ctx.params.items[ctx.params.items.length - 1] };
        },
      },
      echo: { handler: (ctx: Context) => ctx.params },
      list: { params: { n: "number" }, handler: (ctx: Context<{ n: number }>) => items.slice(0, ctx.params.n) },
      text: { params: { n: "number" }, handler: (ctx: Context<{ n: number }>) => "é🎧".repeat(ctx.params.n) },
      bytes: { params: {}, handler: () => blob },
      upload: {
        async handler(ctx: Context<Readable>) {
          let length = 0;
          for await (const chunk of ctx.params) length += chunk.length;
          return { length, stream: true };
        },
      },
      nested: { handler: (ctx: Context) => ctx.call("front.meta") },
      flaky: {
        handler(ctx: Context<{ items: unknown[] }>) {
          flakyCalls++;
          // A call that surely did not run: the caller's retry policy (moleculer.config.ts) calls again.
          if (flakyCalls === 1) throw new Errors.ServiceNotAvailableError({ action: "bulk.flaky", nodeID: "work" });
          return { count: ctx.params.items.length, calls: flakyCalls };
        },
      },
    },
  });
  await Promise.all([front.start(), work.start()]);
  await Promise.all([front.waitForServices(["bulk"]), work.waitForServices(["front"])]);
});
afterAll(async () => {
  await Promise.all([front?.stop(), work?.stop()]);
});
beforeEach(() => {
  packets.length = 0;
});

test("large params reach the action whole, past its param validation, in packets under NATS's 1 MB", async () => {
  expect(JSON.stringify({ items }).length).toBeGreaterThan(NATS_DEFAULT_MAX_PAYLOAD);
  const meta: Record<string, unknown> = {};
  expect(await front.call("bulk.count", { items }, { meta })).toEqual({ count: 20_000, last: items[19_999] });
  expect(sent()).toBeGreaterThan(NATS_DEFAULT_MAX_PAYLOAD);
  expect(Math.max(...packets)).toBeLessThan(NATS_DEFAULT_MAX_PAYLOAD);
  // Neither the action nor the caller sees the marks of the transfer.
  expect(Object.keys(metaSeen.pop()!).filter((k) => k.startsWith("$"))).toEqual([]);
  expect(Object.keys(meta).filter((k) => k.startsWith("$"))).toEqual([]);
  // The validator checks the joined params: the last item's field is named.
  const bad = [...items.slice(0, -1), { n: "x" }];
  await expect(front.call("bulk.count", { items: bad })).rejects.toMatchObject({
    name: "ValidationError",
    code: 422,
    data: [expect.objectContaining({ field: "items[19999].n" })],
  });
});

test("large answers (JSON, text, a Buffer) and values large both ways come back whole", async () => {
  const list: unknown[] = await front.call("bulk.list", { n: 20_000 });
  expect(list).toEqual(items);
  // Text whose pieces are cut inside a surrogate pair (two UTF-16 units per emoji) is joined back exactly.
  const text: string = await front.call("bulk.text", { n: PIECE_CHARS });
  expect(text).toBe("é🎧".repeat(PIECE_CHARS));
  const bytes: Buffer = await front.call("bulk.bytes", {});
  expect(Buffer.isBuffer(bytes) && bytes.equals(blob)).toBe(true);
  const echoed = await front.call("bulk.echo", { items, note: "both ways" });
  expect(echoed).toEqual({ items, note: "both ways" });
  expect(Math.max(...packets)).toBeLessThan(NATS_DEFAULT_MAX_PAYLOAD);
});

test("a retried call sends its params again; the action's own calls carry no mark on", async () => {
  expect(await front.call("bulk.flaky", { items })).toEqual({ count: 20_000, calls: 2 });
  const keys: string[] = await front.call("bulk.nested", { items });
  expect(keys.filter((k) => k.startsWith("$"))).toEqual([]);
});

test("a stream passes as it is, in 64 KB slices; small values and calls inside a node are left alone", async () => {
  const upload = Readable.from([Buffer.alloc(1024 * 1024, 1), Buffer.alloc(10, 2)]);
  expect(await front.call("bulk.upload", upload)).toEqual({ length: 1024 * 1024 + 10, stream: true });
  expect(Math.max(...packets)).toBeLessThan(NATS_DEFAULT_MAX_PAYLOAD);
  packets.length = 0;
  expect(await front.call("bulk.count", { items: items.slice(0, 10) })).toEqual({ count: 10, last: items[9] });
  expect(packets.length).toBe(2); // one request, one answer
  // Without a transporter no action is wrapped at all (npm start, the embedded server).
  const handler = () => Promise.resolve(1);
  expect((MessagePiecesMiddleware as any).localAction.call({ transit: undefined }, handler)).toBe(handler);
});

test("the middleware sits outside Moleculer's Validator and Cacher and inside its Retry; every built-in one is there, in order", () => {
  const names = (b: ServiceBroker): string[] => (b as any).middlewares.list.map((m: any) => m.name);
  const builtIn = names(new ServiceBroker({ logger: false, cacher: "Memory", validator: true, transporter: null }));
  const ours = names(front);
  expect(ours.filter((n) => builtIn.includes(n))).toEqual(builtIn);
  const at = (n: string) => ours.indexOf(n);
  expect(at("MessagePieces")).toBeGreaterThan(at("Validator"));
  expect(at("MessagePieces")).toBeGreaterThan(at("Cacher"));
  expect(at("MessagePieces")).toBeLessThan(at("Retry"));
});

describe("the gateway's answer check on a large answer from another node", () => {
  let server: TestServer;
  let remote: ServiceBroker;
  beforeAll(async () => {
    // POST /index.php/login/v2 (auth none) stands in for any route; its action runs on another node.
    server = await startServer({ services: [plainSchema(ApiService)], broker: { ...options("gateway"), namespace: `${namespace}-gw` } });
    remote = new ServiceBroker({ ...options("auth-node"), namespace: `${namespace}-gw` });
    remote.createService({
      name: "auth",
      actions: {
        login_flow_start: {
          params: { n: { type: "number", convert: true }, broken: { type: "boolean", convert: true, optional: true } },
          response: Type.Array(Type.Object({ n: Type.Integer(), title: Type.String(), url: Type.String() })),
          handler: (ctx: Context<{ n: number; broken?: boolean }>) =>
            ctx.params.broken ? [...items.slice(0, ctx.params.n - 1), { n: "last" }] : items.slice(0, ctx.params.n),
        },
      },
    });
    await remote.start();
    await server.broker.waitForServices(["auth"]);
  });
  afterAll(async () => {
    await remote?.stop();
    await server?.stop();
  });

  test("a valid one is answered whole; one off its schema is the check's 500", async () => {
    packets.length = 0;
    const ok = await api(server.url).post("/index.php/login/v2?n=20000");
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual(items);
    expect(Math.max(...packets)).toBeLessThan(NATS_DEFAULT_MAX_PAYLOAD);
    const broken = await api(server.url).post("/index.php/login/v2?n=20000&broken=true");
    expect(broken.status).toBe(500);
    expect(broken.body.message).toMatch(/does not match its response schema.*19999/);
  });
});
