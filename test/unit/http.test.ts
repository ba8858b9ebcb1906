/**
 * The outbound HTTP client against real HTTP peers on loopback.
 */
import zlib from "zlib";
import { config } from "../../shared/config";
import { fetchUrl, isBlockedAddress, OutboundHttpError, redactUrl } from "../../shared/http";
import { Loopback, startLoopback } from "../helpers/loopback";

const peers: Loopback[] = [];
async function peer(...args: Parameters<typeof startLoopback>): Promise<Loopback> {
  const p = await startLoopback(...args);
  peers.push(p);
  return p;
}
afterEach(async () => {
  config.proxyAllowPrivate = "false";
  await Promise.all(peers.splice(0).map((p) => p.close()));
});

/** The OutboundHttpError fetchUrl rejects with (fails the test when it resolves). */
async function failure(url: string, opts?: Parameters<typeof fetchUrl>[1]): Promise<OutboundHttpError> {
  const err = await fetchUrl(url, opts).then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(OutboundHttpError);
  return err as OutboundHttpError;
}

const FEED = "<rss version=\"2.0\"><channel><title>T</title></channel></rss>".repeat(50);

describe("fetchUrl", () => {
  test("200: body, validators, content type and the service's User-Agent", async () => {
    const p = await peer({
      "/feed.xml": { body: FEED, headers: { "Content-Type": "application/rss+xml", ETag: '"v1"', "Last-Modified": "Wed, 01 Jan 2025 00:00:00 GMT" } },
    });
    const r = await fetchUrl(`${p.url}/feed.xml`, { accept: "application/rss+xml" });
    expect(r).toEqual({
      status: 200, notModified: false, body: Buffer.from(FEED), finalUrl: `${p.url}/feed.xml`,
      etag: '"v1"', lastModified: "Wed, 01 Jan 2025 00:00:00 GMT", contentType: "application/rss+xml",
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
    const r = await fetchUrl(`${p.url}/f`);
    expect(packed.length).toBeLessThan(FEED.length);
    expect(r.body!.toString()).toBe(FEED);
  });

  test("redirect chain (absolute and relative Location) keeps the final URL", async () => {
    const p = await peer();
    p.route("/r1", { status: 301, headers: { Location: `${p.url}/r2` } });
    p.route("/r2", { status: 302, headers: { Location: "/r3?x=1" } });
    p.route("/r3", { status: 307, headers: { Location: "final" } });
    p.route("/final", { body: "done" });
    const r = await fetchUrl(`${p.url}/r1`);
    expect(r.body!.toString()).toBe("done");
    expect(r.finalUrl).toBe(`${p.url}/final`);
    expect(p.requests.map((q) => q.url)).toEqual(["/r1", "/r2", "/r3?x=1", "/final"]);
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
    const first = await fetchUrl(`${p.url}/feed`);
    expect(first).toMatchObject({ status: 200, notModified: false, etag: '"v1"', lastModified });

    const byEtag = await fetchUrl(`${p.url}/feed`, { etag: first.etag });
    expect(byEtag).toMatchObject({ status: 304, notModified: true, body: null, etag: '"v1"' });
    expect(p.requests[1].headers["if-none-match"]).toBe('"v1"');

    const byDate = await fetchUrl(`${p.url}/feed`, { lastModified: first.lastModified });
    // The 304 carries no validators: the ones sent are handed back so the caller keeps them.
    expect(byDate).toEqual({ status: 304, notModified: true, body: null, finalUrl: `${p.url}/feed`, etag: null, lastModified, contentType: null });
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
    const r = await fetchUrl(`${p.url}/picky`);
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
    const r = await fetchUrl(`${p.url}/old`, { username: "alice", password: "s3cret pass" });
    expect(r.body!.toString()).toBe("members");
    expect(p.requests.map((q) => q.headers.authorization)).toEqual([basic("alice", "s3cret pass"), basic("alice", "s3cret pass")]);
  });

  test("user:pass in the URL are used and never shown in finalUrl", async () => {
    const p = await peer({ "/f": { body: "x" } });
    const r = await fetchUrl(p.url.replace("//", "//bob:p%40ss@") + "/f");
    expect(p.requests[0].headers.authorization).toBe(basic("bob", "p@ss"));
    expect(r.finalUrl).toBe(`${p.url}/f`);
    await fetchUrl(p.url.replace("//", "//bob:50%@") + "/f");
    expect(p.requests[1].headers.authorization).toBe(basic("bob", "50%"));
  });

  test("credentials are not forwarded to a redirect on another host", async () => {
    const other = await peer({ "/feed": { body: "elsewhere" } });
    const p = await peer({ "/start": { status: 302, headers: { Location: `http://localhost:${other.port}/feed` } } });
    const r = await fetchUrl(`${p.url}/start`, { username: "alice", password: "s3cret" });
    expect(r.body!.toString()).toBe("elsewhere");
    expect(r.finalUrl).toBe(`http://localhost:${other.port}/feed`);
    expect(p.requests[0].headers.authorization).toBe(basic("alice", "s3cret"));
    expect(other.requests).toHaveLength(1);
    expect(other.requests[0].headers.authorization).toBeUndefined();
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
      await failure(`${withCreds}/x`, { allowPrivate: false }),
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

describe("SSRF guard (allowPrivate: false)", () => {
  test("refuses loopback by address and by name without sending a request", async () => {
    const p = await peer({ "/img.png": { body: "png" } });
    for (const url of [`${p.url}/img.png`, `http://localhost:${p.port}/img.png`, `http://[::1]:${p.port}/`, `http://[::ffff:127.0.0.1]:${p.port}/`, `http://0.0.0.0:${p.port}/`, `http://2130706433:${p.port}/`]) {
      const err = await failure(url, { allowPrivate: false });
      expect(err.kind).toBe("blocked_address");
    }
    expect(p.requests).toHaveLength(0);
    // The same URL is fine for feeds (allowPrivate defaults to true).
    expect((await fetchUrl(`${p.url}/img.png`)).body!.toString()).toBe("png");
  });

  test("checks every redirect hop: an allowed host redirecting to loopback is refused", async () => {
    // 127.0.0.2 stands for a permitted host (PROXY_ALLOW_PRIVATE exempts it); 127.0.0.1 stays refused.
    const inside = await peer({ "/secret": { body: "secret" } });
    const allowed = await peer({ "/img": { status: 302, headers: { Location: `${inside.url}/secret` } }, "/ok": { body: "img" } }, "127.0.0.2");
    config.proxyAllowPrivate = "127.0.0.2/32, fd00::/8";
    expect((await fetchUrl(`${allowed.url}/ok`, { allowPrivate: false })).body!.toString()).toBe("img");
    const err = await failure(`${allowed.url}/img`, { allowPrivate: false });
    expect(err).toMatchObject({ kind: "blocked_address", url: `${inside.url}/secret` });
    expect(inside.requests).toHaveLength(0);
  });

  test("PROXY_ALLOW_PRIVATE=true turns the guard off; a malformed list is a clear error", async () => {
    const p = await peer({ "/i": { body: "i" } });
    config.proxyAllowPrivate = "true";
    expect((await fetchUrl(`${p.url}/i`, { allowPrivate: false })).body!.toString()).toBe("i");
    config.proxyAllowPrivate = "10.0.0.0/8,not-an-ip";
    await expect(fetchUrl(`${p.url}/i`, { allowPrivate: false })).rejects.toThrow(/PROXY_ALLOW_PRIVATE.*not-an-ip/);
  });

  test("address classification", () => {
    for (const a of ["127.0.0.1", "127.1.2.3", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1",
      "0.0.0.0", "::1", "::", "fc00::1", "fd12:3456::1", "fe80::1", "::ffff:10.0.0.1", "::ffff:7f00:1", "224.0.0.1"]) {
      expect([a, isBlockedAddress(a)]).toEqual([a, true]);
    }
    for (const a of ["8.8.8.8", "172.32.0.1", "100.128.0.1", "192.169.0.1", "2001:4860:4860::8888", "::ffff:8.8.8.8"]) {
      expect([a, isBlockedAddress(a)]).toEqual([a, false]);
    }
  });
});
