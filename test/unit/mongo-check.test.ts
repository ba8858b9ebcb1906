/**
 * scripts/mongo-check.ts (`npm run mongo-check`) against the MongoDB wire double: its main() called directly
 * with the double's URI (not built into dist/). Every service starts on the double, /api/health says healthy,
 * every read-only contract case agrees with the embedded store in scratch collections that are dropped
 * afterwards, and the server's own collections are neither written nor read by the contract step. Plus the
 * failures it must report: no URI, a server outside the driver's wire versions (a fake hello-only server), a
 * case on which the stores answer differently.
 */
import net from "net";
import { BSON } from "mongodb";
import { main, wireVersionProblem } from "../../scripts/mongo-check";
import { type MongoWire, startMongoWire } from "../helpers/mongo-wire";
import { CASES, READ_ONLY_CASES } from "../helpers/store-contract";

jest.setTimeout(120_000);

let wire: MongoWire;
beforeAll(async () => {
  wire = await startMongoWire();
});
afterAll(async () => {
  await wire?.close();
});

/** A server that answers every message with this hello (OP_REPLY to OP_QUERY, OP_MSG to OP_MSG): all a driver needs to judge its version. */
async function helloOnly(hello: Record<string, unknown>): Promise<{ uri: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4 && buffered.length >= buffered.readInt32LE(0)) {
        const msg = buffered.subarray(0, buffered.readInt32LE(0));
        buffered = buffered.subarray(msg.length);
        const body = Buffer.from(
          BSON.serialize({
            ismaster: true,
            helloOk: true,
            isWritablePrimary: true,
            maxBsonObjectSize: 16 * 1024 * 1024,
            maxMessageSizeBytes: 48_000_000,
            maxWriteBatchSize: 100_000,
            localTime: new Date(),
            ...hello,
            ok: 1,
          }),
        );
        const opCode = msg.readInt32LE(12);
        const head = Buffer.alloc(opCode === 2004 ? 36 : 21);
        head.writeInt32LE(head.length + body.length, 0);
        head.writeInt32LE(1, 4);
        head.writeInt32LE(msg.readInt32LE(4), 8);
        if (opCode === 2004) {
          head.writeInt32LE(1, 12); // OP_REPLY, one document
          head.writeInt32LE(1, 32);
        } else {
          head.writeInt32LE(2013, 12); // OP_MSG, a body section
        }
        socket.write(Buffer.concat([head, body]));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    // The driver refuses an unsupported server at server selection: 1 s here instead of the store's 10 s.
    uri: `mongodb://127.0.0.1:${port}/old?directConnection=true&serverSelectionTimeoutMS=1000`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe("scripts/mongo-check.ts", () => {
  test("against the wire double: connects, version in range, services healthy, every read-only case, scratch collections dropped", async () => {
    const db = "mongo_check";
    const lines: string[] = [];
    let before: Map<string, string> | null = null;
    let during: Map<string, string> | null = null;
    let queries: ReturnType<MongoWire["queries"]> = [];
    const serverCollections = () =>
      new Map(
        wire
          .collections(db)
          .filter((c) => !c.startsWith("contract_check_"))
          .map((c) => [c, JSON.stringify(wire.docs(db, c))]),
      );
    const code = await main({
      uri: wire.uri(db),
      logger: false,
      print: (line) => {
        lines.push(line);
        // The contract step runs between these two lines: what the server's collections hold then must not change.
        if (line.startsWith("note contract:")) {
          before = serverCollections();
          wire.clearQueries();
        }
        if (line.startsWith("ok   cleanup:")) {
          during = serverCollections();
          queries = wire.queries();
        }
      },
    });
    const text = lines.join("\n");
    expect(code).toBe(0);
    expect(lines.filter((l) => l.startsWith("FAIL"))).toEqual([]);
    expect(text).toMatch(/^ok {3}connect: mongodb:\/\/127\.0\.0\.1:\d+\/mongo_check, database "mongo_check"$/m);
    expect(text).toMatch(/^ok {3}server: MongoDB 7\.0\.0 \(wire versions 0-21\); the driver 7\.9\.0 speaks MongoDB 4\.4 to 9\.0 \(wire versions 9-29\)$/m);
    expect(text).toMatch(/^ok {3}services: \d+ services started without a transporter$/m);
    expect(text).toMatch(/^ok {3}health: GET \/api\/health says healthy \(\d+ stores answer: .*users.*\)$/m);
    // One line per read-only case: ok, or a note for a known difference.
    const agreed = READ_ONLY_CASES.filter((c) => !c.differs);
    expect(lines.filter((l) => /^ok {3}contract \d+:/.test(l))).toHaveLength(agreed.length);
    expect(lines.filter((l) => /^note contract \d+:/.test(l))).toHaveLength(READ_ONLY_CASES.length - agreed.length);
    expect(text).toMatch(new RegExp(`^ok {3}cleanup: ${READ_ONLY_CASES.length} scratch collections dropped$`, "m"));
    expect(lines[lines.length - 1]).toBe(`mongo-check: ${4 + agreed.length + 1} ok, 0 failed`);
    // Nothing left behind, and the server's own collections untouched by the contract step.
    expect(wire.collections(db).filter((c) => c.startsWith("contract_check_"))).toEqual([]);
    expect(wire.collections(db)).toEqual(expect.arrayContaining(["users", "server_settings", "episodes", "tasks"]));
    expect(during).toEqual(before);
    // (the services' own timers may read their collections meanwhile; nothing of theirs is written)
    expect(queries.some((q) => q.coll.startsWith("contract_check_"))).toBe(true);
    const writes = queries.filter((q) => !q.coll.startsWith("contract_check_") && ["update", "delete", "findAndModify"].includes(q.op));
    expect(writes).toEqual([]);
  });

  test("a case on which the stores answer differently fails the check (exit code 1), naming both answers", async () => {
    const differing = CASES.find((c) => c.name.startsWith("equality to null: a field null in some documents and missing"))!;
    const lines: string[] = [];
    const code = await main({ uri: wire.uri("mongo_check_diff"), logger: false, print: (l) => lines.push(l), cases: [{ ...differing, differs: undefined }] });
    expect(code).toBe(1);
    expect(lines.find((l) => l.startsWith("FAIL contract 1:"))).toMatch(/MongoDB answered .*"_id":12.*, the embedded store /);
    expect(lines[lines.length - 1]).toMatch(/^mongo-check: \d+ ok, 1 failed$/);
    expect(wire.collections("mongo_check_diff").filter((c) => c.startsWith("contract_check_"))).toEqual([]);
  });

  test("without a URI it says so and exits 1", async () => {
    const lines: string[] = [];
    expect(await main({ uri: "", print: (l) => lines.push(l) })).toBe(1);
    expect(lines).toEqual(["FAIL config: MONGO_URI is not set (MONGO_URI=mongodb://host/db npm run mongo-check)", "mongo-check: 0 ok, 1 failed"]);
  });

  test.each([
    ["older", { minWireVersion: 0, maxWireVersion: 8 }, /requires at least 9 \(MongoDB 4\.4\)/],
    ["newer", { minWireVersion: 30, maxWireVersion: 31 }, /requires at most 29 \(MongoDB 9\.0\)/],
  ])("a server %s than the driver speaks fails clearly (a fake server answering hello only)", async (_label, hello, reason) => {
    const fake = await helloOnly(hello);
    try {
      const lines: string[] = [];
      expect(await main({ uri: fake.uri, logger: false, print: (l) => lines.push(l) })).toBe(1);
      expect(lines[0]).toMatch(/^FAIL server: mongodb:\/\/127\.0\.0\.1:\d+\/old\?directConnection=true&serverSelectionTimeoutMS=1000: .*wire version/);
      expect(lines[0]).toMatch(reason);
      expect(lines).toHaveLength(2);
    } finally {
      await fake.close();
    }
  });

  test("wireVersionProblem: the driver's range (MIN/MAX_SUPPORTED_WIRE_VERSION) against hello's wire versions", () => {
    expect(wireVersionProblem({ minWireVersion: 0, maxWireVersion: 21 }, "7.0.0")).toBeNull();
    expect(wireVersionProblem({ minWireVersion: 0, maxWireVersion: 9 }, "4.4.29")).toBeNull();
    expect(wireVersionProblem({ minWireVersion: 0, maxWireVersion: 8 }, "4.2.25")).toBe(
      "MongoDB 4.2.25 (wire version 8) is older than the driver 7.9.0 speaks MongoDB 4.4 to 9.0 (wire versions 9-29)",
    );
    expect(wireVersionProblem({ minWireVersion: 30, maxWireVersion: 30 }, "10.0.0")).toMatch(/^MongoDB 10\.0\.0 \(wire versions from 30\) is newer than/);
  });
});
