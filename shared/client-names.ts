/**
 * PinePods' clients' names. Where the API documents put a neutral word in an identifier, PinePods' web and mobile
 * clients say the third-party name: /api/gpodder/devices for /api/podsync/devices, gpodder_url for podsync_url,
 * is_youtube for is_vidsite. Routes marked clientNames (services/api.routes.ts: the clients' paths as aliases of the
 * documented routes, and the few documented routes whose fields the clients send in their words) pass through the
 * gateway here: the clients' words in param keys become the neutral ones before the action sees them, and the answer
 * gets, right after each key with a neutral word, the same value under the client's word (the documented key first;
 * nothing is renamed away). Values are left alone: where a client compares one, the answer already gives its word.
 * The OpenAPI document shows the same (clientSchema, clientParams).
 */

/** The documents' neutral words and the clients' words for them. */
const WORDS: readonly (readonly [neutral: string, client: string])[] = [
  ["podsync", "gpodder"],
  ["cloudsync", "nextcloud"],
  ["vidsite", "youtube"],
  ["notifa", "ntfy"],
  ["notifb", "gotify"],
];
const TO_CLIENT = new Map(WORDS.map(([n, c]) => [n, c]));
const TO_NEUTRAL = new Map(WORDS.map(([n, c]) => [c, n]));
const NEUTRAL_WORD = new RegExp(WORDS.map(([n]) => n).join("|"), "gi");
const CLIENT_WORD = new RegExp(WORDS.map(([, c]) => c).join("|"), "gi");

/** `word` spelled in the case of `like`: podsync, Podsync or PODSYNC. */
function inCaseOf(like: string, word: string): string {
  if (like === like.toUpperCase()) return word.toUpperCase();
  return like[0] === like[0].toUpperCase() ? word[0].toUpperCase() + word.slice(1) : word;
}

const swap = (name: string, re: RegExp, words: Map<string, string>) => name.replace(re, (w) => inCaseOf(w, words.get(w.toLowerCase())!));
/** A name in the clients' words (is_vidsite -> is_youtube, podsyncurl -> gpodderurl); unchanged without a neutral word. */
export const clientName = (name: string) => swap(name, NEUTRAL_WORD, TO_CLIENT);
/** A name in the documents' words (gpodder_url -> podsync_url); unchanged without a client word. */
export const neutralName = (name: string) => swap(name, CLIENT_WORD, TO_NEUTRAL);

const isPlain = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== "object" || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * Renames the clients' words in a request's params' keys to the neutral ones, in place, at any depth (a
 * neutral key sent too wins). Only plain objects and arrays are walked.
 */
export function toNeutralNames(params: unknown): void {
  if (Array.isArray(params)) params.forEach(toNeutralNames);
  else if (isPlain(params)) {
    for (const key of Object.keys(params)) {
      toNeutralNames(params[key]);
      const neutral = neutralName(key);
      if (neutral === key) continue;
      if (!Object.prototype.hasOwnProperty.call(params, neutral)) params[neutral] = params[key];
      delete params[key];
    }
  }
}

/**
 * An answer with, after each key holding a neutral word, the same value under the client's word, at any depth (a
 * new value: the action's answer may be a cached one). A client's key the answer already has is left as it is.
 */
export function withClientNames<T>(answer: T): T {
  if (Array.isArray(answer)) return answer.map(withClientNames) as T;
  if (!isPlain(answer)) return answer;
  const entries: [string, unknown][] = [];
  for (const [key, value] of Object.entries(answer)) {
    const shown = withClientNames(value);
    entries.push([key, shown]);
    const twin = clientName(key);
    if (twin !== key && !Object.prototype.hasOwnProperty.call(answer, twin)) entries.push([twin, shown]);
  }
  // fromEntries defines each key as an own property (a "__proto__" key from stored data stays a plain key).
  return Object.fromEntries(entries) as T;
}

type JsonSchema = Record<string, unknown>;
const SUBSCHEMAS = ["items", "additionalProperties", "not", "if", "then", "else", "contains"];
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];

/** A JSON schema of an answer as withClientNames makes it: each property with a neutral word gets its twin (required when it is). */
export function clientSchema(schema: JsonSchema): JsonSchema {
  if (!isPlain(schema)) return schema;
  const out: JsonSchema = { ...schema };
  for (const k of SUBSCHEMAS) {
    const sub = out[k];
    if (isPlain(sub)) out[k] = clientSchema(sub);
  }
  for (const k of SCHEMA_LISTS) {
    const list: unknown = out[k];
    if (Array.isArray(list)) out[k] = list.map(clientSubschema);
  }
  const patterns = out.patternProperties;
  if (isPlain(patterns)) out.patternProperties = Object.fromEntries(Object.entries(patterns).map(([p, s]) => [p, clientSubschema(s)]));
  const props = out.properties;
  if (isPlain(props)) {
    // The required list as it was (only an array of them gets twins).
    const requiredBefore: unknown[] = Array.isArray(out.required) ? out.required : [];
    const entries: [string, unknown][] = [];
    const required: string[] = [];
    for (const [key, s] of Object.entries(props)) {
      const shown = clientSubschema(s);
      entries.push([key, shown]);
      const twin = clientName(key);
      if (twin === key || twin in props) continue;
      // A subschema is an object (or a boolean, which spreads to nothing).
      entries.push([twin, { ...(shown as JsonSchema), description: `${key} again, under PinePods' clients' name` }]);
      if (requiredBefore.includes(key)) required.push(twin);
    }
    out.properties = Object.fromEntries(entries);
    if (required.length) out.required = [...requiredBefore, ...required];
  }
  return out;
}

/** A subschema (any value in a schema's place) as clientSchema makes it: one that is not a plain object stays as it is. */
function clientSubschema(schema: unknown): unknown {
  return isPlain(schema) ? clientSchema(schema) : schema;
}

/** An action's fastest-validator params as the OpenAPI document shows them for such a route: each neutral key's client twin beside it, optional (either is read). */
export function clientParams(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!params) return params;
  const entries: [string, unknown][] = [];
  for (const [key, rule] of Object.entries(params)) {
    entries.push([key, rule]);
    const twin = clientName(key);
    if (twin === key || twin in params) continue;
    // An object rule otherwise (what else a rule could be spreads as it would have).
    entries.push([
      twin,
      typeof rule === "string"
        ? `${rule}|optional`
        : Array.isArray(rule)
          ? { type: "multi", rules: rule, optional: true }
          : { ...(rule as object), optional: true },
    ]);
  }
  return Object.fromEntries(entries);
}

/** An action's params and answer schema as the OpenAPI document shows them on a clientNames route. */
export function clientContract<C extends { params?: Record<string, unknown>; response?: JsonSchema }>(contract: C | undefined): C | undefined {
  return contract && { ...contract, params: clientParams(contract.params), response: contract.response && clientSchema(contract.response) };
}
