/**
 * JSON from a provider the operator configured (the search service's directory and store, the podcast
 * people database), through the one outbound client, with its failures as the typed errors clients
 * see: 503 when the provider limits or is down, 500 for anything else.
 */
import { config } from "./config";
import { InternalServerError, ServiceUnavailableError } from "./errors";
import { fetchUrl, OutboundHttpError } from "./http";

/** Sent to every provider (the search spec asks for a fixed identifying string). */
export const PROVIDER_USER_AGENT = `${config.serviceName}-search/1.0`;

export function providerFailure(provider: string, err: unknown): Error {
  if (!(err instanceof OutboundHttpError)) return err as Error;
  if (err.kind === "timeout" || err.kind === "network") return new ServiceUnavailableError(`${provider} provider unavailable`);
  if (err.kind === "http_status" && err.status === 429) return new ServiceUnavailableError(`${provider} provider rate limit reached`);
  if (err.kind === "http_status" && err.status! >= 500) return new ServiceUnavailableError(`${provider} provider unavailable (HTTP ${err.status})`);
  return new InternalServerError(`${provider} request failed${err.status ? ` (HTTP ${err.status})` : ""}`);
}

/**
 * Circuit breaker options for actions that answer with a provider's failure: a provider that limits or
 * fails is an answer, not a broken endpoint, so only other failures count. Otherwise one provider's
 * 503s would close the action (and every other provider behind it) for everyone for a while.
 */
export const PROVIDER_CIRCUIT_BREAKER = {
  check: (err: Error | null) => {
    const { code, type } = (err ?? {}) as { code?: number; type?: string };
    return !!err && (!code || code >= 500) && type !== "internal_error" && type !== "service_unavailable";
  },
};

/**
 * A provider's JSON object or array: the providers publish no types, and each caller reads its fields
 * defensively (services/people.service.ts, services/search.parts/providers.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- third-party JSON without a schema, read defensively by the callers
export type ProviderJson = any;

/** GETs url and parses its JSON object or array; headers for signing, the deadline SEARCH_PROVIDER_TIMEOUT_MS. */
export async function fetchProviderJson(provider: string, url: string, headers: Record<string, string> = {}): Promise<ProviderJson> {
  let body: Buffer | null;
  try {
    ({ body } = await fetchUrl(url, {
      rights: "admin", // the operator's own configuration, not a user's URL: a provider on the LAN is fine
      headers,
      userAgent: PROVIDER_USER_AGENT,
      accept: "application/json",
      timeoutMs: config.searchProviderTimeoutMs,
      maxBytes: 20 * 1024 * 1024,
    }));
  } catch (err) {
    throw providerFailure(provider, err);
  }
  try {
    const data: unknown = JSON.parse(String(body));
    if (data && typeof data === "object") return data;
  } catch {
    /* reported below */
  }
  throw new InternalServerError("Failed to parse response body");
}
