/**
 * The outbound HTTP client against real HTTP peers on loopback.
 */
import dns from "dns";
import http from "http";
import zlib from "zlib";
import { config } from "../../shared/config";
import { addressKind, addressRefusal, destinationRefusal, fetchUrl, FetchOptions, OutboundHttpError, redactUrl } from "../../shared/http";
import { Loopback, startLoopback } from "../helpers/loopback";

const peers: Loopback[] = [];
async function peer(...args: Parameters<typeof startLoopback>): Promise<Loopback> {
  const p = await startLoopback(...args);
  peers.push(p);
  return p;
}
afterEach(async () => {
  config.outboundAllowPrivate = "false";
  jest.restoreAllMocks();
  await Promise.all(peers.splice(0).map((p) => p.close()));
});

/** fetchUrl with admin rights unless told otherwise: the loopback peers of these tests are private addresses. */
const get = (url: string, opts: Partial<FetchOptions> = {}) => fetchUrl(url, { rights: "admin", ...opts });

/** The OutboundHttpError get rejects with (fails the test when it resolves). */
async function failure(url: string, opts?: Partial<FetchOptions>): Promise<OutboundHttpError> {
  const err = await get(url, opts).then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(OutboundHttpError);
  return err as OutboundHttpError;
}

const FEED = '<rss version="2.0"><channel><title>T</title></channel></rss>'.repeat(50);

describe("fetchUrl", () => {
  test("200: body, validators, content type and the service's User-Agent", async () => {
    const p = await peer({
      "/feed.xml": { body: FEED, headers: { "Content-Type": "application/rss+xml", ETag: '"v1"', "Last-Modified": "Wed, 01 Jan 2025 00:00:00 GMT" } },
    });
    const r = await get(`${p.url}/feed.xml`, { accept: "application/rss+xml" });
    expect(r).toEqual({
      status: 200,
      notModified: false,
      body: Buffer.from(FEED),
      finalUrl: `${p.url}/feed.xml`,
      movedTo: null,
      etag: '"v1"',
      lastModified: "Wed, 01 Jan 2025 00:00:00 GMT",
      contentType: "application/rss+xml",
      setCookie: [],
    });
    expect(p.requests[0].headers["user-agent"]).toBe(`${config.serviceName}/${config.version}`);
    expect(p.requests[0].headers["accept"]).toBe("application/rss+xml");
    expect(p.requests[0].headers["accept-encoding"]).toMatch(/gzip.*deflate.*br/);
    expect(p.requests[0].headers["authorization"]).toBeUndefined();
  });

  test.each([
    ["gzip", zlib.gzipSync],
    ["deflate", zlib.deflateSync],
    ["br", zlib.brotliCompressSync],
  ] as const)("%s bodies are decoded", async (encoding, compress) => {
    const packed = compress(Buffer.from(FEED));
    const p = await peer({ "/f": { body: packed, headers: { "Content-Encoding": encoding, "Content-Length": String(packed.length) } } });
    const r = await get(`${p.url}/f`);
    expect(packed.length).toBeLessThan(FEED.length);
    expect(r.body!.toString()).toBe(FEED);
  });

  test("redirect chain (absolute and relative Location) keeps the final URL", async () => {
    const p = await peer();
    p.route("/r1", { status: 301, headers: { Location: `${p.url}/r2` } });
    p.route("/r2", { status: 302, headers: { Location: "/r3?x=1" } });
    p.route("/r3", { status: 307, headers: { Location: "final" } });
    p.route("/final", { body: "done" });
    const r = await get(`${p.url}/r1`);
    expect(r.body!.toString()).toBe("done");
    expect(r.finalUrl).toBe(`${p.url}/final`);
    // Moved for good only as far as the permanent redirects go (the 301), not where a temporary one led.
    expect(r.movedTo).toBe(`${p.url}/r2`);
    expect(p.requests.map((q) => q.url)).toEqual(["/r1", "/r2", "/r3?x=1", "/final"]);
  });

  test("permanent redirects only (301, 308): movedTo is where they end; a first temporary one moves nothing", async () => {
    const p = await peer();
    p.route("/a", { status: 308, headers: { Location: "/b" } });
    p.route("/b", { status: 301, headers: { Location: "/c" } });
    p.route("/c", { body: "here" });
    p.route("/t", { status: 307, headers: { Location: "/u" } });
    p.route("/u", { status: 301, headers: { Location: "/c" } });
    expect((await get(`${p.url}/a`)).movedTo).toBe(`${p.url}/c`);
    expect((await get(`${p.url}/t`)).movedTo).toBeNull();
    expect((await get(`${p.url}/c`)).movedTo).toBeNull();
  });

  test("a pooled socket the server closed just as it was reused: the GET is sent once more on a new socket", async () => {
    // The server drops every request that arrives on a socket it has already answered on (as one closing its
    // idle keep-alive sockets does at the moment the client reuses one); the second fetch reuses the socket.
    const answered = new WeakSet<object>();
    let dropped = 0;
    const server = http.createServer((req, res) => {
      if (answered.has(req.socket)) {
        dropped++;
        req.socket.destroy();
        return;
      }
      answered.add(req.socket);
      res.end(FEED);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as any).port}/feed.xml`;
    try {
      expect((await get(url)).status).toBe(200);
      expect((await get(url)).status).toBe(200);
      expect(dropped).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("a redirect loop stops with too_many_redirects after maxRedirects hops", async () => {
    const p = await peer({ "/loop": { status: 302, headers: { Location: "/loop" } } });
    const err = await failure(`${p.url}/loop`, { maxRedirects: 3 });
    expect(err.kind).toBe("too_many_redirects");
    expect(p.requests).toHaveLength(4);
    expect(config.httpMaxRedirects).toBe(5);
    expect((await failure(`${p.url}/loop`)).kind).toBe("too_many_redirects");
  });

  test("a server that never answers times out", async () => {
    const p = await peer(() => undefined);
    const err = await failure(`${p.url}/hang`, { timeoutMs: 300 });
    expect(err.kind).toBe("timeout");
  });

  test("the deadline covers the body: a body that stalls halfway times out", async () => {
    const p = await peer((req, res) => {
      res.writeHead(200, { "Content-Length": "1000" });
      res.write("x".repeat(10));
    });
    expect((await failure(`${p.url}/stall`, { timeoutMs: 300 })).kind).toBe("timeout");
  });

  test("size cap: an endless body is aborted once it passes maxBytes and the server sees the socket close", async () => {
    let written = 0;
    let socketClosed!: Promise<void>;
    const p = await peer((req, res) => {
      socketClosed = new Promise((resolve) => req.socket.on("close", () => resolve()));
      res.writeHead(200, { "Content-Type": "audio/mpeg" });
      const chunk = Buffer.alloc(16 * 1024, 1);
      const pump = () => {
        while (!res.destroyed && written < 1024 ** 3) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
      };
      pump();
    });
    const err = await failure(`${p.url}/endless`, { maxBytes: 256 * 1024 });
    expect(err.kind).toBe("too_large");
    await socketClosed;
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  test("size cap on the decoded bytes: a small gzip bomb is refused", async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(4 * 1024 * 1024));
    const p = await peer({ "/bomb": { body: bomb, headers: { "Content-Encoding": "gzip" } } });
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect((await failure(`${p.url}/bomb`, { maxBytes: 1024 * 1024 })).kind).toBe("too_large");
  });

  test("a declared Content-Length above the cap is refused before reading", async () => {
    const p = await peer({ "/big": { body: "x".repeat(2000) } });
    const err = await failure(`${p.url}/big`, { maxBytes: 1000 });
    expect(err.kind).toBe("too_large");
    expect(err.message).toContain("2000");
  });

  test("conditional GET: If-None-Match and If-Modified-Since, 304 gives notModified", async () => {
    const lastModified = "Wed, 01 Jan 2025 00:00:00 GMT";
    const p = await peer({
      "/feed": (req, res) => {
        if (req.headers["if-none-match"] === '"v1"' || req.headers["if-modified-since"] === lastModified) {
          res.writeHead(304, req.headers["if-none-match"] ? { ETag: '"v1"' } : {}).end();
        } else res.writeHead(200, { ETag: '"v1"', "Last-Modified": lastModified }).end(FEED);
      },
    });
    const first = await get(`${p.url}/feed`);
    expect(first).toMatchObject({ status: 200, notModified: false, etag: '"v1"', lastModified });

    const byEtag = await get(`${p.url}/feed`, { etag: first.etag });
    expect(byEtag).toMatchObject({ status: 304, notModified: true, body: null, etag: '"v1"' });
    expect(p.requests[1].headers["if-none-match"]).toBe('"v1"');

    const byDate = await get(`${p.url}/feed`, { lastModified: first.lastModified });
    // The 304 carries no validators: the ones sent are handed back so the caller keeps them.
    expect(byDate).toEqual({
      status: 304,
      notModified: true,
      body: null,
      finalUrl: `${p.url}/feed`,
      movedTo: null,
      etag: null,
      lastModified,
      contentType: null,
      setCookie: [],
    });
    expect(p.requests[2].headers["if-modified-since"]).toBe(lastModified);
    expect(p.requests[2].headers["if-none-match"]).toBeUndefined();
  });

  test("non-2xx answers are http_status errors with the status", async () => {
    const p = await peer({ "/gone": { status: 410 } });
    const err = await failure(`${p.url}/gone`);
    expect(err).toMatchObject({ kind: "http_status", status: 410, url: `${p.url}/gone` });
    expect((await failure(`${p.url}/missing`)).status).toBe(404);
  });

  test("a closed port is a network error", async () => {
    const p = await peer();
    const url = `${p.url}/x`;
    await p.close();
    expect((await failure(url)).kind).toBe("network");
  });

  test("403 is retried once with a browser User-Agent", async () => {
    const p = await peer((req, res) => {
      res.writeHead(/Mozilla/.test(req.headers["user-agent"] ?? "") ? 200 : 403).end("ok");
    });
    const r = await get(`${p.url}/picky`);
    expect(r.body!.toString()).toBe("ok");
    expect(p.requests).toHaveLength(2);
    expect(p.requests[0].headers["user-agent"]).toBe(`${config.serviceName}/${config.version}`);
    expect(p.requests[1].headers["user-agent"]).toMatch(/^Mozilla\/5\.0 .*Chrome/);

    const q = await peer({ "/never": { status: 403 } });
    expect(await failure(`${q.url}/never`)).toMatchObject({ kind: "http_status", status: 403 });
    expect(q.requests).toHaveLength(2);
  });
});

describe("basic-auth feeds", () => {
  const basic = (user: string, pass: string) => "Basic " + Buffer.from(`${user}:${pass}`).toString("base64");

  test("credentials go as an Authorization header, also on a redirect to the same host", async () => {
    const p = await peer();
    p.route("/old", { status: 301, headers: { Location: "/private" } });
    p.route("/private", (req, res) => {
      res.writeHead(req.headers.authorization === basic("alice", "s3cret pass") ? 200 : 401).end("members");
    });
    const r = await get(`${p.url}/old`, { username: "alice", password: "s3cret pass" });
    expect(r.body!.toString()).toBe("members");
    expect(p.requests.map((q) => q.headers.authorization)).toEqual([basic("alice", "s3cret pass"), basic("alice", "s3cret pass")]);
  });

  test("user:pass in the URL are used and never shown in finalUrl", async () => {
    const p = await peer({ "/f": { body: "x" } });
    const r = await get(p.url.replace("//", "//bob:p%40ss@") + "/f");
    expect(p.requests[0].headers.authorization).toBe(basic("bob", "p@ss"));
    expect(r.finalUrl).toBe(`${p.url}/f`);
    await get(p.url.replace("//", "//bob:50%@") + "/f");
    expect(p.requests[1].headers.authorization).toBe(basic("bob", "50%"));
  });

  test("credentials are not forwarded to a redirect on another host", async () => {
    const other = await peer({ "/feed": { body: "elsewhere" } });
    const p = await peer({ "/start": { status: 302, headers: { Location: `http://localhost:${other.port}/feed` } } });
    const r = await get(`${p.url}/start`, { username: "alice", password: "s3cret" });
    expect(r.body!.toString()).toBe("elsewhere");
    expect(r.finalUrl).toBe(`http://localhost:${other.port}/feed`);
    expect(p.requests[0].headers.authorization).toBe(basic("alice", "s3cret"));
    expect(other.requests).toHaveLength(1);
    expect(other.requests[0].headers.authorization).toBeUndefined();
  });

  test("POST with a body and the caller's headers; Set-Cookie is returned; a 303 continues as a GET without them elsewhere", async () => {
    const bodies: string[] = [];
    const other = await peer({ "/done": { body: "done" } });
    const p = await peer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      bodies.push(Buffer.concat(chunks).toString());
      if (req.url === "/login") res.writeHead(200, { "Set-Cookie": ["sessionid=abc; HttpOnly", "csrf=1"] }).end("{}");
      else res.writeHead(303, { Location: `http://localhost:${other.port}/done` }).end();
    });
    const login = await get(`${p.url}/login`, { method: "POST", body: '{"a":1}', headers: { "Content-Type": "application/json", "X-Token": "t0k" } });
    expect(login.setCookie).toEqual(["sessionid=abc; HttpOnly", "csrf=1"]);
    expect(bodies[0]).toBe('{"a":1}');
    expect(p.requests[0]).toMatchObject({ method: "POST", headers: { "content-type": "application/json", "x-token": "t0k" } });

    const r = await get(`${p.url}/submit`, { method: "POST", body: "x", headers: { "X-Token": "t0k" } });
    expect(r.body!.toString()).toBe("done");
    expect(other.requests[0].method).toBe("GET");
    expect(other.requests[0].headers["x-token"]).toBeUndefined();
  });

  test("error messages and the error object never contain the password", async () => {
    const p = await peer({ "/hang": () => undefined });
    const withCreds = p.url.replace("//", "//alice:hunter2@");
    const errors = [
      await failure(`${withCreds}/missing`),
      await failure(`${withCreds}/hang`, { timeoutMs: 200 }),
      await failure(`${p.url}/missing`, { username: "alice", password: "hunter2" }),
      await failure("http://alice:hunter2@127.0.0.1:1/x"),
      await failure("ftp://alice:hunter2@example.org/x"),
      await failure("http://alice:hunter2@[not an address/"),
      await failure(`${withCreds}/x`, { rights: "user" }),
    ];
    expect(errors.map((e) => e.kind)).toEqual(["http_status", "timeout", "http_status", "network", "invalid_url", "invalid_url", "blocked_address"]);
    for (const e of errors) {
      for (const text of [e.message, e.url, e.stack ?? "", JSON.stringify(e), String(e)]) expect(text).not.toContain("hunter2");
    }
    // Query strings go too: private feeds carry tokens there.
    expect(redactUrl("https://u:p@host.example/a?auth=tok3n")).toBe("https://host.example/a?…");
    expect(redactUrl("https://host.example/a")).toBe("https://host.example/a");
  });
});

describe("URLs", () => {
  test.each(["not a url", "ftp://example.org/feed.xml", "file:///etc/passwd", "javascript:alert(1)", ""])("%j is invalid_url", async (url) => {
    expect((await failure(url)).kind).toBe("invalid_url");
  });

  test("a redirect to a non-http URL is invalid_url", async () => {
    const p = await peer({ "/r": { status: 302, headers: { Location: "ftp://example.org/f" } } });
    expect((await failure(`${p.url}/r`)).kind).toBe("invalid_url");
  });
});

describe("outbound URL policy", () => {
  const FORBIDDEN = [
    "169.254.169.254",
    "169.254.170.2",
    "0.0.0.0",
    "0.1.2.3",
    "100.100.100.200",
    "192.0.0.192",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    "192.0.2.1",
    "::",
    "fe80::1",
    "fd00:ec2::254",
    "fd00:ec2::253",
    "ff02::1",
    "2001:db8::1",
    "2001:0:4136:e378::1",
    "::ffff:169.254.169.254",
    "::ffff:a9fe:a9fe",
    "64:ff9b::a9fe:a9fe",
    "::a9fe:a9fe",
    "2002:a9fe:a9fe::1",
    "::ffff:0:7f00:1",
  ];
  const PRIVATE = [
    "127.0.0.1",
    "127.1.2.3",
    "10.0.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "100.64.0.1",
    "100.100.100.201",
    "100.127.255.255",
    "198.18.0.1",
    "::1",
    "fc00::1",
    "fd12:3456::1",
    "fec0::1",
    "::ffff:10.0.0.1",
    "::ffff:7f00:1",
    "0:0:0:0:0:ffff:127.0.0.1",
    "64:ff9b::7f00:1",
    "::7f00:1",
    "64:ff9b:1::a00:1",
    "2002:a00:1::1",
  ];
  const PUBLIC = ["8.8.8.8", "172.32.0.1", "100.128.0.1", "192.169.0.1", "2001:4860:4860::8888", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"];

  test("address classes, IPv4 carried in IPv6 (mapped, NAT64, compatible, 6to4) judged as that IPv4", () => {
    const kinds = (list: string[]) => list.map((a) => [a, addressKind(a)]);
    expect(kinds(FORBIDDEN)).toEqual(FORBIDDEN.map((a) => [a, "forbidden"]));
    expect(kinds(PRIVATE)).toEqual(PRIVATE.map((a) => [a, "private"]));
    expect(kinds(PUBLIC)).toEqual(PUBLIC.map((a) => [a, "public"]));
  });

  test("forbidden for everyone whatever the operator allows; private for admins and the operator's list; public for all", () => {
    for (const a of FORBIDDEN) {
      for (const allow of ["true", "169.254.0.0/16,0.0.0.0/0,::/0"]) {
        expect([a, addressRefusal(a, "admin", allow)]).toEqual([a, expect.stringMatching(/always refused/)]);
      }
    }
    for (const a of PRIVATE) {
      expect([a, addressRefusal(a, "user", "false")]).toEqual([a, expect.stringMatching(/admins only/)]);
      expect([a, addressRefusal(a, "admin", "false"), addressRefusal(a, "user", "true")]).toEqual([a, null, null]);
    }
    for (const a of PUBLIC) expect([a, addressRefusal(a, "user", "false")]).toEqual([a, null]);
    const list = "10.1.2.0/24, 127.0.0.2, fd12::/16";
    expect(["10.1.2.3", "::ffff:10.1.2.3", "127.0.0.2", "fd12:3456::1"].map((a) => addressRefusal(a, "user", list))).toEqual([null, null, null, null]);
    expect(["10.1.3.1", "127.0.0.1", "127.0.0.3", "fd13::1", "::1"].map((a) => addressRefusal(a, "user", list) !== null)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  test("a malformed operator list is a clear error", () => {
    for (const bad of ["10.0.0.0/8,not-an-ip", "10.0.0.0/33", "fd00::/129", "10.0.0.0/x"]) {
      expect(() => addressRefusal("10.0.0.1", "user", bad)).toThrow(/OUTBOUND_ALLOW_PRIVATE.*is not an address or CIDR/);
    }
  });

  test("every spelling of loopback and metadata is refused for a user before any request; an admin reaches loopback only", async () => {
    const p = await peer({ "/": { body: "inside" } });
    const loopback = ["127.0.0.1", "2130706433", "0177.0.0.1", "0x7f.1", "127.1", "0x7f000001", "localhost", "[::1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]"];
    const forbidden = ["169.254.169.254", "0.0.0.0", "0", "[::ffff:169.254.169.254]", "[fd00:ec2::254]", "[fe80::1]", "2852039166"];
    for (const host of [...loopback, ...forbidden]) {
      const err = await failure(`http://${host}:${p.port}/`, { rights: "user" });
      expect([host, err.kind, err.message]).toEqual([host, "blocked_address", expect.stringMatching(/^This address is not allowed: /)]);
    }
    for (const host of forbidden) {
      expect([host, (await failure(`http://${host}:${p.port}/`)).message]).toEqual([host, expect.stringMatching(/always refused/)]);
    }
    expect(p.requests).toHaveLength(0);
    for (const host of ["127.0.0.1", "2130706433", "0177.0.0.1", "0x7f.1", "127.1", "localhost"]) {
      expect((await get(`http://${host}:${p.port}/`)).body!.toString()).toBe("inside");
    }
  });

  test("the refusal says nothing about what listens there: an open and a closed port get the same answer", async () => {
    const open = await peer({ "/": { body: "x" } });
    const closed = await peer();
    await closed.close();
    const a = await failure(`http://10.0.0.1:${open.port}/`, { rights: "user" });
    const b = await failure(`${open.url}/`, { rights: "user" });
    const c = await failure(`${closed.url}/`, { rights: "user" });
    expect(b.message.replace(String(open.port), "PORT")).toBe(c.message.replace(String(closed.port), "PORT"));
    expect(a.message).toBe(b.message.replace(`127.0.0.1`, "10.0.0.1"));
    expect([a, b, c].map((e) => [e.kind, e.status])).toEqual([
      ["blocked_address", undefined],
      ["blocked_address", undefined],
      ["blocked_address", undefined],
    ]);
  });

  test("every redirect hop is checked: an allowed host redirecting to loopback or metadata is refused", async () => {
    // 127.0.0.2 stands for a host the operator allows; 127.0.0.1 and 169.254.169.254 stay refused.
    const inside = await peer({ "/secret": { body: "secret" } });
    const allowed = await peer(
      {
        "/ok": { body: "img" },
        "/to-loopback": { status: 302, headers: { Location: `${inside.url}/secret` } },
        "/to-decimal": { status: 302, headers: { Location: `http://2130706433:${inside.port}/secret` } },
        "/to-metadata": { status: 302, headers: { Location: "http://169.254.169.254/latest/meta-data/" } },
      },
      "127.0.0.2",
    );
    config.outboundAllowPrivate = "127.0.0.2/32, fd00::/8";
    expect((await get(`${allowed.url}/ok`, { rights: "user" })).body!.toString()).toBe("img");
    expect(await failure(`${allowed.url}/to-loopback`, { rights: "user" })).toMatchObject({ kind: "blocked_address", url: `${inside.url}/secret` });
    expect(await failure(`${allowed.url}/to-decimal`, { rights: "user" })).toMatchObject({ kind: "blocked_address", url: `${inside.url}/secret` });
    expect(await failure(`${allowed.url}/to-metadata`, { rights: "user" })).toMatchObject({ kind: "blocked_address" });
    expect(inside.requests).toHaveLength(0);
    // An admin follows the redirect to loopback, never the one to metadata.
    expect((await get(`${allowed.url}/to-loopback`)).body!.toString()).toBe("secret");
    expect((await failure(`${allowed.url}/to-metadata`)).message).toMatch(/always refused/);
  });

  test("DNS answers are checked, and the connection goes to the checked address (no second lookup to rebind)", async () => {
    const allowed = await peer({ "/": { body: "checked" } }, "127.0.0.2");
    config.outboundAllowPrivate = "127.0.0.2/32";
    const answers: Record<string, string[]> = {
      "feed.rebind.test": ["127.0.0.2"],
      "evil.rebind.test": ["127.0.0.2", "169.254.169.254"],
      "inside.rebind.test": ["10.0.0.7"],
    };
    const lookup = jest.spyOn(dns.promises, "lookup").mockImplementation((async (host: string) => {
      if (!answers[host]) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
      return answers[host].map((address) => ({ address, family: 4 }));
    }) as any);
    // The system resolver knows no *.rebind.test: the fetch can only have connected to the checked answer.
    expect((await get(`http://feed.rebind.test:${allowed.port}/`, { rights: "user" })).body!.toString()).toBe("checked");
    expect(lookup).toHaveBeenCalledTimes(1);
    expect(allowed.requests[0].headers.host).toBe(`feed.rebind.test:${allowed.port}`);
    // One refused answer among several refuses the host; a private one is refused for a user, and the name's address is not told.
    expect((await failure(`http://evil.rebind.test:${allowed.port}/`)).message).toMatch(/always refused/);
    const inside = await failure(`http://inside.rebind.test:${allowed.port}/`, { rights: "user" });
    expect(inside.message).toMatch(/^This address is not allowed: .*admins only/);
    expect(inside.message).not.toContain("10.0.0.7");
    expect(allowed.requests).toHaveLength(1);
  });

  test("a pooled socket an admin's fetch opened to a private address is never reused by a user's fetch of the same name", async () => {
    const inside = await peer({ "/": { body: "inside" } });
    // The same port on 127.0.0.2, the address the operator lets users reach: only the pool tells them apart.
    const outside = http.createServer((req, res) => res.end("outside"));
    await new Promise<void>((resolve) => outside.listen(inside.port, "127.0.0.2", resolve));
    config.outboundAllowPrivate = "127.0.0.2/32";
    let answer = "127.0.0.1";
    jest.spyOn(dns.promises, "lookup").mockImplementation((async () => [{ address: answer, family: 4 }]) as any);
    try {
      expect((await get(`http://pool.test:${inside.port}/`)).body!.toString()).toBe("inside");
      answer = "127.0.0.2";
      expect((await get(`http://pool.test:${inside.port}/`, { rights: "user" })).body!.toString()).toBe("outside");
    } finally {
      outside.closeAllConnections();
      await new Promise((resolve) => outside.close(resolve));
    }
  });

  test("OUTBOUND_ALLOW_PRIVATE=true opens private addresses to users, never forbidden ones", async () => {
    const p = await peer({ "/i": { body: "i" } });
    config.outboundAllowPrivate = "true";
    expect((await get(`${p.url}/i`, { rights: "user" })).body!.toString()).toBe("i");
    expect((await failure(`http://169.254.169.254:${p.port}/i`, { rights: "user" })).kind).toBe("blocked_address");
  });
});

describe("destinationRefusal (a URL stored now, fetched later)", () => {
  test("literal and resolved addresses are judged by the same policy as a fetch; a name that does not resolve yet is not held against the URL", async () => {
    expect(await destinationRefusal("http://169.254.169.254/latest", "admin")).toMatch(/^This address is not allowed: link-local, cloud metadata/);
    expect(await destinationRefusal("https://[fe80::1]/token", "admin")).toMatch(/^This address is not allowed: link-local/);
    // "localhost" goes through the resolver: loopback is an admin's to reach, not a user's.
    expect(await destinationRefusal("http://localhost:9/x", "admin")).toBeNull();
    expect(await destinationRefusal("http://localhost:9/x", "user")).toMatch(/loopback and private network addresses are for admins only/);
    expect(await destinationRefusal("http://no-such-host.invalid/x", "admin")).toBeNull();
    expect(await destinationRefusal("ftp://example.org/x", "admin")).toMatch(/unsupported protocol ftp:/);
    expect(await destinationRefusal("not a url", "admin")).toMatch(/not a valid URL/);
  });
});
