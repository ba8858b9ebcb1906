/**
 * Every call of the web app goes through this client, generated from the server's OpenAPI document
 * (api-schema.d.ts, `npm run openapi`): a changed answer fails `npm run build`, not the page.
 */
import createClient from "openapi-fetch";
import type { paths } from "./api-schema";
import { session, setSession } from "./session";
import { here, navigate } from "./router";

export type { paths };

export const api = createClient<paths>({ baseUrl: "" });

api.use({
  onRequest({ request }) {
    const s = session.value;
    if (s && !request.headers.has("Api-Key")) request.headers.set("Api-Key", s.key);
    // A refused password gets no WWW-Authenticate (the browser's own dialog would cover the page).
    request.headers.set("X-Requested-With", "podcast-web");
    return request;
  },
  onResponse({ request, response }) {
    // The key this page holds is no longer valid: sign in again, then come back here.
    if (response.status === 401 && session.value && request.headers.get("Api-Key") === session.value.key) expire();
    return response;
  },
});

/** An API failure with the server's own words (its JSON error body), shown in the page. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function messageOf(status: number, error: unknown): string {
  const body = error as { message?: unknown; detail?: unknown } | undefined;
  for (const m of [body?.message, body?.detail]) if (typeof m === "string" && m) return m;
  return status ? `The server answered ${status}.` : "The server cannot be reached. Check the connection and try again.";
}

/** The data of an answer, or an ApiError: `const x = await ok(api.GET(...))`. */
export async function ok<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let res: { data?: T; error?: unknown; response: Response };
  try {
    res = await pending;
  } catch {
    throw new ApiError(0, messageOf(0, undefined));
  }
  if (!res.response.ok || res.data === undefined) throw new ApiError(res.response.status, messageOf(res.response.status, res.error));
  return res.data;
}

/** A readable message of anything thrown. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function expire(): void {
  setSession(null);
  const back = here();
  navigate(`/sign-in?next=${encodeURIComponent(back)}`, true);
}

/** The address of an episode's audio through this server (the file downloaded here, else the enclosure proxied). */
export function streamUrl(episode_id: number): string {
  const s = session.value;
  const q = new URLSearchParams({ api_key: s?.key ?? "", user_id: String(s?.user_id ?? 0) });
  return `/api/data/stream/${episode_id}?${q}`;
}

/** A feed's image through the server's image proxy (the CSP loads no image of another host). */
export function imageUrl(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  if (url.startsWith("/")) return url;
  return `/api/proxy/image?${new URLSearchParams({ url })}`;
}
