/**
 * The OpenAPI 3.1 document of the gateway, built from THE route table (services/api.routes.ts) and the
 * fastest-validator param schemas of the actions it calls, so that it cannot drift from what the server
 * does. Params of actions on other nodes come from the service registry (Moleculer sends each action's
 * schema in its node INFO); a RegExp pattern arrives as {} over the wire and is then left out. Each
 * route's answer is its action's `response` schema (shared/contracts/answers.ts), carried the same way;
 * summaries and descriptions come from the API documents (shared/api-docs.json, scripts/api-docs.ts).
 */
import { ANSWER_STATUS, MEDIA_TYPE, byMediaType } from "./contracts/answers";
import { clientContract } from "./client-names";
import { ERROR_CATEGORIES } from "./errors";
import apiDocs from "./api-docs.json";
import type { AuthLevel, RouteDef } from "./types";

/** A JSON Schema (or a piece of the document) as built here: its fields pass through as they are. */
type JsonSchema = Record<string, unknown>;
/** An object schema as paramsToSchema builds it: its properties and required list are read back. */
type ObjectSchema = { type: "object"; properties: Record<string, JsonSchema>; required?: string[] };

/**
 * The fields of a fastest-validator rule (object form) read here. A rule is whatever an action declares
 * or the registry carries (JSON), so each field is read as it comes.
 */
interface ValidatorRule {
  type?: unknown;
  optional?: unknown;
  default?: unknown;
  nullable?: unknown;
  values?: unknown;
  items?: unknown;
  props?: unknown;
  properties?: unknown;
  rules?: unknown;
  integer?: unknown;
  positive?: unknown;
  min?: unknown;
  max?: unknown;
  length?: unknown;
  pattern?: unknown;
}

const PRIMITIVES: Record<string, JsonSchema> = {
  string: { type: "string" },
  number: { type: "number" },
  boolean: { type: "boolean" },
  email: { type: "string", format: "email" },
  url: { type: "string", format: "uri" },
  date: { type: "string", format: "date-time" },
  uuid: { type: "string", format: "uuid" },
  any: {},
};

/** A shorthand rule ("string|optional|min:3") as the object form. */
function expandShorthand(rule: string): ValidatorRule {
  const [type, ...flags] = rule.split("|");
  const out: Record<string, unknown> = { type };
  for (const flag of flags) {
    const [k, v] = flag.split(":");
    out[k] = v === undefined ? true : v === "true" ? true : v === "false" ? false : Number.isNaN(Number(v)) ? v : Number(v);
  }
  return out;
}

/** One fastest-validator rule as JSON Schema (2020-12, as OpenAPI 3.1 uses), and whether it is optional. */
export function ruleToSchema(input: unknown): { schema: JsonSchema; optional: boolean } {
  if (Array.isArray(input)) {
    const alts = input.map(ruleToSchema);
    return { schema: { anyOf: alts.map((a) => a.schema) }, optional: alts.some((a) => a.optional) };
  }
  const rule: ValidatorRule = typeof input === "string" ? expandShorthand(input) : (input as ValidatorRule | null | undefined) || {};
  const optional = !!rule.optional || rule.default !== undefined;
  let schema: JsonSchema;
  switch (rule.type) {
    case "enum":
      schema = { enum: rule.values ?? [] };
      break;
    case "array":
      schema = { type: "array", ...(rule.items ? { items: ruleToSchema(rule.items).schema } : {}) };
      if (rule.min !== undefined) schema.minItems = rule.min;
      if (rule.max !== undefined) schema.maxItems = rule.max;
      break;
    case "object":
      schema = rule.props || rule.properties ? paramsToSchema((rule.props || rule.properties) as Record<string, unknown>) : { type: "object" };
      break;
    case "multi":
      return ruleToSchema(rule.rules ?? []);
    default:
      // String(): the key the type names, as indexing with it would make.
      schema = { ...(PRIMITIVES[String(rule.type)] ?? {}) };
      if (rule.type === "number") {
        if (rule.integer) schema.type = "integer";
        if (rule.positive) schema.exclusiveMinimum = 0;
        if (rule.min !== undefined) schema.minimum = rule.min;
        if (rule.max !== undefined) schema.maximum = rule.max;
      }
      if (schema.type === "string") {
        if (rule.min !== undefined) schema.minLength = rule.min;
        if (rule.max !== undefined) schema.maxLength = rule.max;
        if (rule.length !== undefined) schema.minLength = schema.maxLength = rule.length;
        const pattern = rule.pattern instanceof RegExp ? rule.pattern.source : typeof rule.pattern === "string" ? rule.pattern : null;
        if (pattern) schema.pattern = pattern;
      }
  }
  if (rule.nullable) schema = { anyOf: [schema, { type: "null" }] };
  if (rule.default !== undefined && typeof rule.default !== "function") schema.default = rule.default;
  return { schema, optional };
}

/** An action's params (a fastest-validator schema object) as one JSON Schema object. */
export function paramsToSchema(params: Record<string, unknown> | undefined): ObjectSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, rule] of Object.entries(params ?? {})) {
    if (name === "$$strict" || name === "$$async" || name === "$$root") continue;
    const { schema, optional } = ruleToSchema(rule);
    properties[name] = schema;
    if (!optional) required.push(name);
  }
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

const SECURITY: Record<AuthLevel, Record<string, string[]>[]> = {
  none: [],
  optional: [{}, { ApiKey: [] }],
  basic: [{ Basic: [] }],
  key: [{ ApiKey: [] }],
  admin: [{ ApiKey: [] }],
  rss: [{ ApiKey: [] }, { ApiKeyQuery: [] }],
  sync: [{ Basic: [] }, { SyncSession: [] }],
};

/** Error statuses a route may answer: validation, auth by its level, and what every call can meet. */
function errorStatuses(auth: AuthLevel): number[] {
  const authErrors = auth === "none" ? [] : auth === "optional" || auth === "basic" ? [401] : [401, 403];
  return [400, ...authErrors, 404, 409, 429, 500, 503];
}

export interface OpenApiInfo {
  title: string;
  version: string;
}

/** What the document needs of an action: its fastest-validator params and its response schema. */
export interface ActionContract {
  params?: Record<string, unknown>;
  response?: JsonSchema;
}

/** A response schema's fields read here: this project's markers (shared/contracts/answers.ts) and its description. */
type ResponseSchema = JsonSchema & { [MEDIA_TYPE]?: string; [ANSWER_STATUS]?: number; description?: string };

/** A schema as JSON (TypeBox's symbol-keyed markers dropped), the way the registry carries it. */
const plain = (schema: JsonSchema): ResponseSchema => JSON.parse(JSON.stringify(schema)) as ResponseSchema;

/** The success answer of a route from its action's response schema; {} (flagged by the tests) when it has none. */
export function successResponse(method: string, response: JsonSchema | undefined): Record<string, JsonSchema> {
  if (!response) return { "200": { description: "Success", content: { "application/json": { schema: {} } } } };
  const { [MEDIA_TYPE]: media, [ANSWER_STATUS]: status, description, ...schema } = plain(response);
  if (status) return { [String(status)]: { description: description ?? "Redirect", headers: { Location: { schema: { type: "string" } } } } };
  const text = description ?? "Success";
  // HEAD answers the headers of the GET answer, without a body.
  if (method === "HEAD") return { "200": { description: `Headers of: ${text}`, headers: { "Content-Length": { schema: { type: "integer" } } } } };
  if (schema.type === "null") return { "200": { description: text } };
  if (byMediaType(schema)) {
    const content = Object.fromEntries(schema.anyOf.map(({ [MEDIA_TYPE]: type, ...member }) => [type, { schema: member }]));
    return { "200": { description: text, content } };
  }
  return { "200": { description: text, content: { [media ?? "application/json"]: { schema: media ? { ...schema, description } : schema } } } };
}

interface OperationDocs {
  summary: string;
  description: string;
}
const DOCS: Record<string, OperationDocs> = apiDocs.operations;

/** The document for a route table; contractOf(action) gives an action's params and response schema when known. */
export function buildOpenApi(table: Record<string, RouteDef>, contractOf: (action: string) => ActionContract | undefined, info: OpenApiInfo) {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const [key, def] of Object.entries(table)) {
    const [method, path] = key.split(" ");
    // PinePods' clients' names (RouteDef.clientNames): their words beside the neutral ones in params and answer.
    const contract = def.clientNames ? clientContract(contractOf(def.action)) : contractOf(def.action);
    const schema = paramsToSchema(contract?.params);
    // HEAD shares its GET's documents.
    const docs = DOCS[key] ?? DOCS[`GET ${path}`];
    const pathNames = Array.from(path.matchAll(/\{(\w+)\}/g), (m) => m[1]);
    const parameters: JsonSchema[] = pathNames.map((name) => ({ name, in: "path", required: true, schema: schema.properties[name] ?? { type: "string" } }));
    const bodyProps = Object.fromEntries(Object.entries(schema.properties).filter(([name]) => !pathNames.includes(name)));
    const bodyRequired = (schema.required ?? []).filter((name) => !pathNames.includes(name));
    const op: JsonSchema = {
      operationId: `${method.toLowerCase()}_${path.replace(/[^\w]+/g, "_").replace(/^_|_$/g, "")}`,
      summary: docs?.summary ?? def.summary ?? path,
      ...(docs?.description ? { description: docs.description } : {}),
      tags: [def.action.split(".")[0]],
      "x-moleculer-action": def.action,
      "x-auth-level": def.auth,
      security: SECURITY[def.auth],
      parameters,
      responses: {
        ...successResponse(method, contract?.response),
        ...Object.fromEntries(errorStatuses(def.auth).map((s) => [String(s), { $ref: `#/components/responses/E${s}` }])),
      },
    };
    if (method === "GET") {
      for (const [name, s] of Object.entries(bodyProps)) parameters.push({ name, in: "query", required: bodyRequired.includes(name), schema: s });
    } else if (def.upload) {
      // The form fields an upload action declares (its `multipart` schema), then the file.
      op.requestBody = {
        required: true,
        content: {
          "multipart/form-data": {
            schema: {
              type: "object",
              properties: { ...bodyProps, [def.upload]: { type: "string", format: "binary" } },
              required: [...bodyRequired, def.upload],
            },
          },
        },
      };
    } else {
      op.requestBody = {
        required: bodyRequired.length > 0,
        content: { "application/json": { schema: { type: "object", properties: bodyProps, ...(bodyRequired.length ? { required: bodyRequired } : {}) } } },
      };
    }
    (paths[path] ??= {})[method.toLowerCase()] = op;
  }
  const statuses = [400, 401, 403, 404, 409, 429, 500, 503];
  return {
    openapi: "3.1.0",
    info: { ...info, description: "Generated from the gateway's route table and the param schemas of the actions it calls." },
    servers: [{ url: "/" }],
    paths,
    components: {
      securitySchemes: {
        ApiKey: { type: "apiKey", in: "header", name: "Api-Key" },
        ApiKeyQuery: { type: "apiKey", in: "query", name: "api_key" },
        Basic: { type: "http", scheme: "basic" },
        SyncSession: { type: "apiKey", in: "cookie", name: "sessionid" },
      },
      schemas: {
        Error: {
          type: "object",
          required: ["error", "message", "detail", "status_code"],
          properties: { error: { type: "string" }, message: { type: "string" }, detail: { type: "string" }, status_code: { type: "integer" } },
        },
      },
      responses: Object.fromEntries(
        statuses.map((s) => [
          `E${s}`,
          { description: ERROR_CATEGORIES[s] ?? String(s), content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        ]),
      ),
    },
  };
}
