/** The gateway's alias index finds the very alias (and params) moleculer-web's own scan finds, for every route. */
import { ServiceBroker } from "moleculer";
import ApiGateway from "moleculer-web";
import { aliasIndexMixin } from "../../shared/alias-index.mixin";
import { routes, toAliases } from "../../services/api.routes";

describe("aliasIndexMixin", () => {
  const broker = new ServiceBroker({ logger: false });
  const gateway: any = broker.createService({
    name: "gw",
    mixins: [aliasIndexMixin, ApiGateway],
    settings: {
      server: false,
      routes: [
        { path: "/api", aliases: { "GET openapi.json": "x.openapi", "GET docs/:file": "x.file" } },
        {
          path: "/",
          mappingPolicy: "restrict",
          autoAliases: false,
          aliases: { ...toAliases(routes), "GET /files/*": "x.any", "GET /:anything/detail": "x.detail" },
        },
      ],
    },
  });
  const scan = (ApiGateway as any).methods.resolveAlias;
  beforeAll(() => broker.start());
  afterAll(() => broker.stop());

  const urlsFor = (fullPath: string) => [
    fullPath.replace(/:\w+/g, "7"),
    fullPath.replace(/:\w+/g, "a%2Fb"),
    fullPath.toUpperCase().replace(/:\w+/gi, "x"),
    `${fullPath.replace(/:\w+/g, "7")}/more`,
    fullPath.split("/").slice(0, -1).join("/") || "/",
    fullPath.replace(/^\//, "//"),
  ];

  test("the same alias and params as moleculer-web for every route, method and nearby URL", () => {
    expect(gateway.resolveAlias).not.toBe(scan);
    const urls = new Set(["/", "/api", "/files/a/b/c", "/foo/detail", "/FOO/detail/", "/api/docs/swagger-ui.css"]);
    for (const alias of gateway.aliases) for (const url of urlsFor(alias.fullPath)) urls.add(url);
    let compared = 0;
    for (const url of urls) {
      for (const method of ["GET", "POST", "PUT", "DELETE", "HEAD", "PATCH"]) {
        const [ours, theirs] = [gateway.resolveAlias(url, method), scan.call(gateway, url, method)];
        expect([method, url, ours && ours.alias.fullPath, ours && ours.params]).toEqual([
          method,
          url,
          theirs && theirs.alias.fullPath,
          theirs && theirs.params,
        ]);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(6 * 4 * Object.keys(routes).length);
  });

  test("a parameter followed by a literal in one segment (the gPodder API's {username}.json, {deviceid}.{format})", () => {
    for (const [method, url, action, params] of [
      ["GET", "/api/2/devices/john.doe.json", "gpodder.devices", { username: "john.doe" }],
      ["POST", "/api/2/subscriptions/alice/phone-1.json", "gpodder.upload_subscription_changes", { username: "alice", deviceid: "phone-1" }],
      ["GET", "/subscriptions/alice.opml", "gpodder.simple_subscriptions", { username: "alice", format: "opml" }],
      ["PUT", "/subscriptions/alice/my.laptop.txt", "gpodder.put_simple_subscriptions", { username: "alice", deviceid: "my.laptop", format: "txt" }],
      ["GET", "/index.php/apps/gpoddersync/episode_action", "gpodder.nextcloud_episode_actions", {}],
    ] as const) {
      expect(gateway.resolveAlias(url, method)).toMatchObject({ alias: { action }, params });
      expect(scan.call(gateway, url, method)).toMatchObject({ alias: { action }, params });
    }
  });

  test("a route added later is found (the index is rebuilt)", () => {
    expect(gateway.resolveAlias("/late/1", "GET")).toBe(false);
    gateway.addRoute({ path: "/late", aliases: { "GET /:id": "x.late" } });
    expect(gateway.resolveAlias("/late/1", "GET")).toMatchObject({ alias: { action: "x.late" }, params: { id: "1" } });
  });
});
