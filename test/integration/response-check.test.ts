/**
 * The test-time answer check (RESPONSE_SCHEMA_CHECK=1, test/setup-env.ts): an answer that does not match
 * its route's response schema becomes a 500 naming the route and the failing path, so the test fails.
 * Here a gateway whose service_check answers a string where its schema says integer, and an action on
 * another node (its schema reaches the gateway through the registry) answering off its schema.
 */
import { ServiceBroker } from "moleculer";
import ApiService from "../../services/api.service";
import { LanguagesAnswer } from "../../shared/contracts/users";
import { api } from "../helpers/client";
import { startServer, TestServer } from "../helpers/server";

const serviceCheck = (ApiService.actions as any).service_check;
const brokenGateway = { ...ApiService, actions: { ...ApiService.actions, service_check: { ...serviceCheck, handler: () => ({ status_code: "200", service_instance: true }) } } };

let server: TestServer;
let remote: ServiceBroker;
beforeAll(async () => {
  // Two nodes on moleculer's in-process transporter: the gateway here, a users service over there.
  server = await startServer({ services: [brokenGateway], broker: { transporter: "Fake", nodeID: "gateway-node" } });
  remote = new ServiceBroker({ transporter: "Fake", nodeID: "users-node", logger: false });
  remote.createService({ name: "users", actions: { get_available_languages: { params: {}, response: LanguagesAnswer, handler: () => ({ languages: "en" }) } } });
  await remote.start();
  await server.broker.waitForServices("users");
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
