/**
 * The test-time answer check (RESPONSE_SCHEMA_CHECK=1, set by the test suite): the gateway holds every
 * answer against the `response` schema of the action its route calls (shared/contracts/answers.ts) and
 * answers 500 naming the route and the failing path instead of the answer, so the test that made the
 * request fails. The gateway installs it as its route's onAfterCall only when the setting is on: with it
 * off, no code of this file runs per request. The schema comes from the registry's action definition
 * (req.$endpoint.action), so actions on other nodes are checked too; Ajv compiles each schema once. An
 * answer too large for one message crosses the transporter in pieces and reaches this check whole
 * (shared/message-pieces.middleware.ts), so a large answer is held against its schema like any other.
 */
import type { Context, Service } from "moleculer";
import type { ValidateFunction } from "ajv";
import type { IncomingRequest } from "moleculer-web";
import type { GatewayMeta } from "./types";
import { Errors } from "moleculer";
import { ANSWER_STATUS, MEDIA_TYPE, byMediaType } from "./contracts/answers";

/** A 500 whose message reaches the client (shared/errors.ts keeps it): the answer broke its route's contract. */
export class ResponseSchemaError extends Errors.MoleculerError {
  constructor(message: string) {
    super(message, 500, "response_schema");
    this.name = "ResponseSchemaError";
  }
}

const isRaw = (data: unknown) => Buffer.isBuffer(data) || typeof (data as { pipe?: unknown } | null)?.pipe === "function";
const JSON_TYPE = "application/json";
/** "text/x-opml; charset=utf-8" -> "text/x-opml"; JSON when the action set none. */
const baseType = (responseType: string | undefined) => (responseType ?? JSON_TYPE).split(";")[0].trim();

/** moleculer-web's onAfterCall hook: returns the answer unchanged or throws ResponseSchemaError. */
/** A response schema as the registry carries it: JSON Schema, with this project's markers (shared/contracts/answers.ts). */
interface Declared {
  [MEDIA_TYPE]?: string;
  [ANSWER_STATUS]?: number;
  anyOf?: Declared[];
}

/** What the check reads of ctx.meta. */
type AnswerMeta = Pick<GatewayMeta, "$statusCode" | "$responseType">;
/** `this` of the hook: the gateway service, or for a multipart upload moleculer-web's alias (its service beside it). */
type HookThis = Partial<Service> & { service?: Service };

export function responseCheck(): (
  this: HookThis,
  ctx: Context<unknown, AnswerMeta>,
  route: unknown,
  req: IncomingRequest,
  res: unknown,
  data: unknown,
) => unknown {
  // ajv is a dev dependency: loaded only where the check is switched on (a require, not an import; types only from it above).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- dev dependency, loaded only when the check is on
  const Ajv = (require("ajv") as typeof import("ajv")).default;
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- dev dependency, loaded only when the check is on
  (require("ajv-formats") as typeof import("ajv-formats")).default(ajv);
  ajv.addVocabulary([MEDIA_TYPE, ANSWER_STATUS]);
  const compiled = new WeakMap<object, ValidateFunction>();
  return function checkResponse(this: HookThis, ctx, _route, req, _res, data) {
    // The action definition carries the schema (`response`), which Moleculer's types do not name.
    const schema = (req.$endpoint?.action as { response?: Declared } | undefined)?.response;
    const alias = req.$alias as (typeof req.$alias & { fullPath?: string }) | undefined; // fullPath: set by moleculer-web, not in its types
    const route = `${req.method} ${alias?.fullPath ?? req.originalUrl} (${req.$endpoint?.action?.name})`;
    const fail = (problem: string) => {
      const err = new ResponseSchemaError(`Answer of ${route} does not match its response schema: ${problem}`);
      // `this` is the gateway service, or for a multipart upload moleculer-web's alias (its service beside it).
      (this.logger ?? this.service?.logger)?.error("response schema mismatch", { route, problem });
      throw err;
    };
    // Routes without a schema fail the OpenAPI test (test/integration/openapi.test.ts), not each request.
    if (!schema || req.method === "HEAD" || (ctx.meta.$statusCode ?? 200) >= 400) return data;
    if (schema[ANSWER_STATUS]) {
      if (ctx.meta.$statusCode !== schema[ANSWER_STATUS]) fail(`status ${ctx.meta.$statusCode ?? 200}, declared ${schema[ANSWER_STATUS]}`);
      return data;
    }
    // ByMediaType: the member of the media type the action answered with.
    const members: Declared[] | null = byMediaType(schema) ? schema.anyOf : null;
    const declared = members ? members.find((m) => m[MEDIA_TYPE] === baseType(ctx.meta.$responseType)) : schema;
    if (!declared) return fail(`answered ${baseType(ctx.meta.$responseType)}, declared ${members!.map((m) => m[MEDIA_TYPE]).join(" or ")}`);
    if (declared[MEDIA_TYPE] && declared[MEDIA_TYPE] !== JSON_TYPE) {
      if (typeof data !== "string" && !isRaw(data)) fail(`declared ${declared[MEDIA_TYPE]}, answered JSON`);
      return data;
    }
    if (isRaw(data)) fail("declared JSON, answered a stream or buffer");
    const validate = compiled.get(declared) ?? ajv.compile(declared);
    compiled.set(declared, validate);
    // What the client parses: undefined fields dropped, dates as strings.
    if (!validate(data === undefined ? null : JSON.parse(JSON.stringify(data)))) fail(ajv.errorsText(validate.errors, { dataVar: "answer" }));
    return data;
  };
}
