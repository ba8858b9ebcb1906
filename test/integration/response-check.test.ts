/**
 * The test-time answer check (RESPONSE_SCHEMA_CHECK=1, test/setup-env.ts): an answer that does not match
 * its route's response schema becomes a 500 naming the route and the failing path, so the test fails.
 * Here a gateway whose service_check answers a string where its schema says integer.
 */
import ApiService from "../../services/api.service";
import { api } from "../helpers/client";
import { startServer, TestServer } from "../helpers/server";

const serviceCheck = (ApiService.actions as any).service_check;
const brokenGateway = { ...ApiService, actions: { ...ApiService.actions, service_check: { ...serviceCheck, handler: () => ({ status_code: "200", service_instance: true }) } } };

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ services: [brokenGateway] });
});
afterAll(() => server.stop());

test("the check is on for the whole suite", () => {
  expect(process.env.RESPONSE_SCHEMA_CHECK).toBe("1");
});

test("an answer off its schema fails with 500 naming the route, the action and the failing field", async () => {
  const res = await api(server.url).get("/api/service_check");
  expect(res.status).toBe(500);
  expect(res.body.message).toContain("GET /api/service_check (api.service_check)");
  expect(res.body.message).toContain("answer/status_code must be integer");
});

test("an answer on its schema passes unchanged", async () => {
  const res = await api(server.url).get("/api/data/get_available_languages");
  // Not among this server's services: the check does not turn errors into anything else.
  expect(res.status).toBe(503);
});
