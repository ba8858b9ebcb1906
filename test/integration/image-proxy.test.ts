/**
 * The image proxy over HTTP: private, loopback and link-local targets refused by default (also after a
 * redirect), images passed on with cache headers and cached, anything else a clear 4xx.
 */
import crypto from "crypto";
import { config } from "../../shared/config";
import { api, expectErrorBody } from "../helpers/client";
import { Loopback, startLoopback } from "../helpers/loopback";
import { startServer, TestServer } from "../helpers/server";

describe("image proxy", () => {
  let server: TestServer;
  let peer: Loopback;
  let other: Loopback;
  const png = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), crypto.randomBytes(3000)]);
  const proxy = (url: string) => api(server.url).get("/api/proxy/image").query({ url }).buffer(true);
  const hits = (p: string) => peer.requests.filter((r) => r.url === p).length;

  beforeAll(async () => {
    Object.assign(config, { refreshInterval: 0 });
    other = await startLoopback({ "/img.png": { headers: { "Content-Type": "image/png" }, body: png } }, "127.0.0.2");
    peer = await startLoopback({
      "/img.png": { headers: { "Content-Type": "image/png", ETag: '"v1"' }, body: png },
      "/page": { headers: { "Content-Type": "text/html" }, body: "<html></html>" },
      "/svg": { headers: { "Content-Type": "image/svg+xml" }, body: "<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>" },
      "/big.png": { headers: { "Content-Type": "image/png" }, body: Buffer.alloc(50_000) },
      "/hop": { status: 302, headers: { Location: `${other.url}/img.png` } },
    });
    server = await startServer({ allowPrivate: "false" });
  });
  afterAll(async () => {
    await server?.stop();
    await peer?.close();
    await other?.close();
  });

  test.each(["/img.png", "localhost"])("loopback, private and link-local targets are refused by default (%s)", async (what) => {
    const target = what === "localhost" ? `http://localhost:${peer.port}/img.png` : `${peer.url}${what}`;
    const refused = async (url: string) => {
      const res = await proxy(url);
      expectErrorBody(res, 400);
      expect(res.body.message).toMatch(/This address is not allowed/);
    };
    await refused(target);
    for (const url of [
      "http://10.1.2.3/a.png",
      "http://192.168.0.1/a.png",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]/a.png",
      "http://[::ffff:127.0.0.1]/a.png",
    ])
      await refused(url);
    expect(hits("/img.png")).toBe(0);
  });

  describe("with the test server's address allowed (OUTBOUND_ALLOW_PRIVATE=127.0.0.1)", () => {
    beforeAll(() => {
      config.outboundAllowPrivate = "127.0.0.1";
    });

    test("an image passes with cache headers and a sandboxing CSP, and the second request comes from the cache", async () => {
      const res = await proxy(`${peer.url}/img.png`);
      expect(res.status).toBe(200);
      expect(res.headers["content-type"]).toBe("image/png");
      expect(Buffer.compare(res.body, png)).toBe(0);
      expect(res.headers["cache-control"]).toMatch(/^public, max-age=\d+/);
      expect(res.headers["etag"]).toBe('"v1"');
      expect(res.headers["content-security-policy"]).toMatch(/sandbox/);
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect((await proxy(`${peer.url}/img.png`)).status).toBe(200);
      expect(hits("/img.png")).toBe(1);
    });

    test("a redirect to an address still refused is refused (every hop is checked)", async () => {
      expectErrorBody(await proxy(`${peer.url}/hop`), 400);
      expect(other.requests).toHaveLength(0);
    });

    test("not an image, too large, gone or not a URL: clear 4xx", async () => {
      expectErrorBody(await proxy(`${peer.url}/page`), 400);
      const svg = await proxy(`${peer.url}/svg`);
      expect(svg.status).toBe(200);
      expect(svg.headers["content-security-policy"]).toMatch(/default-src 'none'/);
      const max = config.imageProxyMaxBytes;
      config.imageProxyMaxBytes = 10_000;
      try {
        expectErrorBody(await proxy(`${peer.url}/big.png`), 400);
      } finally {
        config.imageProxyMaxBytes = max;
      }
      expectErrorBody(await proxy(`${peer.url}/nothing.png`), 404);
      expectErrorBody(await proxy("ftp://example.org/a.png"), 400);
      expectErrorBody(await proxy("not a url"), 400);
      expectErrorBody(await api(server.url).get("/api/proxy/image"), 400);
    });
  });
});
