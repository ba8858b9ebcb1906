/**
 * The test-time answer check (RESPONSE_SCHEMA_CHECK=1, test/setup-env.ts): an answer that does not match
 * its route's response schema becomes a 500 naming the route and the failing path, so the test fails.
 * Here a gateway whose service_check answers a string where its schema says integer, and an action on
 * another node (its schema reaches the gateway through the registry) answering off its schema, and an
 * answer whose media type follows the request (ByMediaType) held against the member of the type it has.
 */
import { ServiceBroker } from "moleculer";
import ApiService from "../../services/api.service";
import { LanguagesAnswer } from "../../shared/contracts/users";
import { ByMediaType, Type } from "../../shared/contracts/answers";
import { api } from "../helpers/client";
import { plainSchema } from "../helpers/schema";
import { startServer, TestServer } from "../helpers/server";

const serviceCheck = (ApiService.actions as any).service_check;
const brokenGateway = {
  ...ApiService,
  actions: { ...ApiService.actions, service_check: { ...serviceCheck, handler: () => ({ status_code: "200", service_instance: true }) } },
};

let server: TestServer;
let remote: ServiceBroker;
beforeAll(async () => {
  // Two nodes on moleculer's in-process transporter: the gateway here, a users service over there.
  server = await startServer({ services: [plainSchema(brokenGateway)], broker: { transporter: "Fake", nodeID: "gateway-node" } });
  remote = new ServiceBroker({ transporter: "Fake", nodeID: "users-node", logger: false });
  remote.createService({
    name: "users",
    actions: { get_available_languages: { params: {}, response: LanguagesAnswer, handler: () => ({ languages: "en" }) } },
  });
  // POST /index.php/login/v2?case= (auth none) stands in for a route answering in the media type the request names.
  const listOrText = ByMediaType("A list", { "application/json": Type.Array(Type.String()), "text/plain": Type.String() });
  const cases: Record<string, [string, unknown]> = {
    text: ["text/plain", "http://a.example/feed\n"],
    json: ["application/json", ["http://a.example/feed"]],
    wrongJson: ["application/json", { feeds: [] }],
    jsonAsText: ["text/plain", ["http://a.example/feed"]],
    undeclared: ["text/csv", "a,b"],
  };
  remote.createService({
    name: "auth",
    actions: {
      login_flow_start: {
        params: { case: "string" },
        response: listOrText,
        handler(ctx: any) {
          const [type, answer] = cases[ctx.params.case];
          ctx.meta.$responseType = `${type}; charset=utf-8`;
          return answer;
        },
      },
    },
  });
  await remote.start();
  await server.broker.waitForServices(["users", "auth"]);
});
afterAll(async () => {
  await remote.stop();
  await server.stop();
});

test("the check is on for the whole suite", () => {
  expect(process.env.RESPONSE_SCHEMA_CHECK).toBe("1");
});

test("an answer off its schema fails with 500 naming the route, the action and the failing field", async () => {
  const res = await api(server.url).get("/api/service_check");
  expect(res.status).toBe(500);
  expect(res.body.message).toContain("GET /api/service_check (api.service_check)");
  expect(res.body.message).toContain("answer/status_code must be integer");
});

test("an action on another node is checked against the schema the registry carries", async () => {
  const res = await api(server.url).get("/api/data/get_available_languages");
  expect(res.status).toBe(500);
  expect(res.body.message).toContain("GET /api/data/get_available_languages (users.get_available_languages)");
  expect(res.body.message).toContain("answer/languages must be array");
});

test("errors pass the check unchanged", async () => {
  // The remote users service has no such action: its 503 stays a 503.
  const res = await api(server.url).get("/api/data/get_server_default_language");
  expect(res.status).toBe(503);
});

test("an answer of several media types is held against the member of the type it was given with", async () => {
  const asked = (name: string) => api(server.url).post(`/index.php/login/v2?case=${name}`);
  expect((await asked("text")).status).toBe(200);
  expect((await asked("json")).status).toBe(200);
  const wrongJson = await asked("wrongJson");
  expect(wrongJson.status).toBe(500);
  expect(wrongJson.body.message).toContain("answer must be array");
  const jsonAsText = await asked("jsonAsText");
  expect(jsonAsText.status).toBe(500);
  expect(jsonAsText.body.message).toContain("declared text/plain, answered JSON");
  const undeclared = await asked("undeclared");
  expect(undeclared.status).toBe(500);
  expect(undeclared.body.message).toContain("answered text/csv, declared application/json or text/plain");
});
