/**
 * GET /api/openapi.json documents every route of the table (method, path, auth, params, answers, error
 * bodies) and validates against the OpenAPI 3.1 schema; docs/openapi.json (npm run openapi) is the same
 * document; GET /api/docs serves Swagger UI from this server.
 */
import { execFileSync } from "child_process";
import fs from "fs";
import path from "path";
import { api } from "../helpers/client";
import { startServer, TestServer } from "../helpers/server";
import { routes } from "../../services/api.routes";
import { ruleToSchema } from "../../shared/openapi";

const ROOT = path.resolve(__dirname, "..", "..");
function validateOpenApi(doc: unknown): { valid: boolean; version: string; errors: unknown } {
  const script = path.join(ROOT, "test", "helpers", "openapi-validate.mjs");
  return JSON.parse(execFileSync(process.execPath, [script], { cwd: ROOT, input: JSON.stringify(doc), encoding: "utf8" }));
}

let server: TestServer;
let doc: any;
beforeAll(async () => {
  server = await startServer();
  const res = await api(server.url).get("/api/openapi.json");
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => server.stop());

test("the document validates as OpenAPI 3.1, and a broken one does not", () => {
  expect(doc.openapi).toBe("3.1.0");
  expect(validateOpenApi(doc)).toMatchObject({ valid: true, version: "3.1" });
  expect(validateOpenApi({ ...doc, paths: { "/x": { get: { responses: { "200": { content: 5 } } } } } }).valid).toBe(false);
});

test("every route of the table is there with its action and auth level", () => {
  const missing = Object.entries(routes).filter(([key, def]) => {
    const [method, p] = key.split(" ");
    const op = doc.paths[p]?.[method.toLowerCase()];
    return !op || op["x-moleculer-action"] !== def.action || op["x-auth-level"] !== def.auth;
  });
  expect(missing).toEqual([]);
});

test("every route answers by a response schema: JSON, or declared text, binary, one of several media types, an empty body or a redirect", () => {
  const lacking: string[] = [];
  for (const [key] of Object.entries(routes)) {
    const [method, p] = key.split(" ");
    const responses = doc.paths[p][method.toLowerCase()].responses;
    const success = responses["200"] ?? responses["302"];
    const media = Object.entries<any>(success?.content ?? {});
    const declared =
      (method === "HEAD" && success?.headers) ||
      (responses["302"]?.headers?.Location && !responses["200"]) ||
      (success && !success.content) ||
      (media.length > 0 && media.every(([, m]) => Object.keys(m.schema ?? {}).length > 0));
    if (!declared) lacking.push(key);
  }
  expect(lacking).toEqual([]);
});

test("summaries and descriptions come from the API documents", () => {
  const op = doc.paths["/api/data/get_theme/{user_id}"].get;
  expect(op.summary).toBe("Get theme");
  expect(op.description).toContain("theme:string");
  expect(op.responses["200"].content["application/json"].schema).toMatchObject({
    type: "object",
    required: ["theme"],
    properties: { theme: { type: "string" } },
  });
});

test("a route the API documents do not describe has the route table's summary; an answer by format lists each media type; an empty body has no content", () => {
  const simple = doc.paths["/subscriptions/{username}.{format}"].get;
  expect(simple.summary).toBe(routes["GET /subscriptions/{username}.{format}"].summary);
  expect(simple.summary).toContain("gPodder simple API");
  expect(Object.keys(simple.responses["200"].content)).toEqual(["application/json", "text/x-opml", "text/plain"]);
  expect(simple.responses["200"].content["application/json"].schema).toMatchObject({
    type: "array",
    items: { type: "object", required: expect.arrayContaining(["url", "title", "description", "website", "logo_url", "subscribers"]) },
  });
  expect(simple.responses["200"].content["text/x-opml"].schema).toMatchObject({ type: "string" });
  const device = doc.paths["/api/2/devices/{username}/{deviceid}.json"].post;
  expect(device.responses["200"]).toEqual({ description: expect.any(String) });
  expect(doc.paths["/index.php/login/v2/flow/{flow}"].get.responses["200"].content["text/html"].schema).toMatchObject({ type: "string" });
});

test("docs/openapi.json is the document the server serves (npm run openapi writes it)", () => {
  const file = JSON.parse(fs.readFileSync(path.join(ROOT, "docs", "openapi.json"), "utf8"));
  expect(file).toEqual(doc);
});

test("params come from the action schemas: path, query and body, with types and requirements", () => {
  const theme = doc.paths["/api/data/get_theme/{user_id}"].get;
  expect(theme.parameters).toEqual([{ name: "user_id", in: "path", required: true, schema: { type: "integer", exclusiveMinimum: 0 } }]);
  expect(theme.security).toEqual([{ ApiKey: [] }]);
  const setTheme = doc.paths["/api/data/user/set_theme"].put.requestBody.content["application/json"].schema;
  expect(setTheme.required).toEqual(expect.arrayContaining(["user_id", "new_theme"]));
  expect(setTheme.properties.new_theme.enum).toEqual(expect.arrayContaining(["light", "dark"]));
  expect(doc.paths["/api/health"].get.security).toEqual([]);
  expect(doc.paths["/api/data/get_key"].get.security).toEqual([{ Basic: [] }]);
});

test("an upload route is multipart/form-data: its form fields, then the file", () => {
  const form = doc.paths["/api/data/add_local_podcast_artwork"].post.requestBody.content["multipart/form-data"].schema;
  expect(form.required).toEqual(["user_id", "podcast_id", "file"]);
  expect(form.properties.file).toEqual({ type: "string", format: "binary" });
});

test("error responses carry the JSON error body; admin routes list 403", () => {
  const op = doc.paths["/api/data/add_user"].post;
  expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "500", "503"]));
  expect(doc.components.responses.E403.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
  expect(doc.components.schemas.Error.required).toEqual(["error", "message", "detail", "status_code"]);
});

test("fastest-validator rules in every form become JSON Schema", () => {
  expect(ruleToSchema("string|optional|max:5")).toEqual({ schema: { type: "string", maxLength: 5 }, optional: true });
  expect(ruleToSchema({ type: "array", items: "number", min: 1 }).schema).toEqual({ type: "array", items: { type: "number" }, minItems: 1 });
  expect(ruleToSchema({ type: "string", pattern: /^a+$/, nullable: true, default: "a" })).toEqual({
    schema: { anyOf: [{ type: "string", pattern: "^a+$" }, { type: "null" }], default: "a" },
    optional: true,
  });
  expect(ruleToSchema({ type: "object", props: { a: "boolean" } }).schema).toEqual({ type: "object", properties: { a: { type: "boolean" } }, required: ["a"] });
  expect(ruleToSchema([{ type: "number" }, { type: "string", optional: true }])).toEqual({
    schema: { anyOf: [{ type: "number" }, { type: "string" }] },
    optional: true,
  });
});

test("GET /api/docs is Swagger UI served from this server (no CDN); other file names answer 404 JSON", async () => {
  const page = await api(server.url).get("/api/docs");
  expect(page.status).toBe(200);
  expect(page.text).toContain("/api/docs/swagger-ui-bundle.js");
  expect(page.text).not.toMatch(/https?:\/\//);
  const bundle = await api(server.url).get("/api/docs/swagger-ui-bundle.js");
  expect(bundle.status).toBe(200);
  expect(bundle.headers["content-type"]).toMatch(/javascript/);
  for (const bad of ["package.json", "..%2Fpackage.json", "index.html"]) {
    const res = await api(server.url).get(`/api/docs/${bad}`);
    expect(res.status).toBe(404);
    expect(res.body.status_code).toBe(404);
  }
});
