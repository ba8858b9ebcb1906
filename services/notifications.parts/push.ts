/**
 * Delivery of push notifications to the three endpoint shapes a user can set up: ntfy (notifa),
 * gotify (notifb) and a plain HTTP webhook. Everything goes through shared/http.ts (the address policy
 * applies with the rights the settings were saved with); secrets are opened only here, at send time.
 */
import { fetchUrl, OutboundHttpError, Rights } from "../../shared/http";
import { decryptSecret } from "../../shared/secrets";

export type Platform = "ntfy" | "gotify" | "http";

/** The neutral words of the API document and the names clients of this API family use. */
export const PLATFORMS: Record<string, Platform> = { ntfy: "ntfy", notifa: "ntfy", gotify: "gotify", notifb: "gotify", http: "http", webhook: "http" };

/** One user's settings of one platform; *_sealed fields are encrypted (shared/secrets.ts). */
export interface PushSettingsDoc {
  _id: string;
  user_id: number;
  platform: Platform;
  enabled: boolean;
  notifa_topic: string | null;
  notifa_server_url: string | null;
  notifa_username: string | null;
  notifa_password_sealed: string | null;
  notifa_access_token_sealed: string | null;
  notifb_url: string | null;
  notifb_token_sealed: string | null;
  http_url: string | null;
  http_method: "POST" | "PUT" | "GET" | null;
  http_token_sealed: string | null;
  /** Rights of the user who saved the endpoint: what the outbound address policy lets it reach. */
  rights: Rights;
}

/** What is sent; the webhook receives it as JSON (docs/library.md "Notifications of new episodes"). */
export interface PushMessage {
  event: "episode.new" | "person.episode" | "test";
  /** person.episode: the followed person the episode names. */
  person?: string;
  title: string;
  message: string;
  user_id: number;
  podcast_id?: number;
  podcast_title?: string;
  episode_id?: number;
  episode_title?: string;
  episode_url?: string | null;
  pub_date?: string | null;
}

export const DEFAULT_NTFY_SERVER = "https://ntfy.sh";

function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, "") + "/" + path.replace(/^\/+/, "");
}

/** Sends one message to one endpoint; throws OutboundHttpError (or Error for a missing setting). */
export async function push(s: PushSettingsDoc, msg: PushMessage, timeoutMs: number): Promise<void> {
  const base = { timeoutMs, maxBytes: 64 * 1024, maxRedirects: 0, rights: s.rights } as const;
  if (s.platform === "ntfy") {
    if (!s.notifa_topic) throw new Error("ntfy topic is not set");
    const token = decryptSecret(s.notifa_access_token_sealed);
    const password = decryptSecret(s.notifa_password_sealed);
    const headers: Record<string, string> = { "Content-Type": "text/plain; charset=utf-8", Title: encodeHeader(msg.title) };
    if (msg.episode_url) headers.Click = msg.episode_url;
    if (token) headers.Authorization = `Bearer ${token}`;
    await fetchUrl(joinUrl(s.notifa_server_url || DEFAULT_NTFY_SERVER, encodeURIComponent(s.notifa_topic)), {
      ...base,
      method: "POST",
      body: msg.message,
      headers,
      ...(!token && s.notifa_username ? { username: s.notifa_username, password: password ?? "" } : {}),
    });
  } else if (s.platform === "gotify") {
    const token = decryptSecret(s.notifb_token_sealed);
    if (!s.notifb_url || !token) throw new Error("gotify URL and token are required");
    await fetchUrl(joinUrl(s.notifb_url, "message"), {
      ...base,
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Gotify-Key": token },
      body: JSON.stringify({ title: msg.title, message: msg.message, priority: 5 }),
    });
  } else {
    if (!s.http_url) throw new Error("webhook URL is not set");
    const token = decryptSecret(s.http_token_sealed);
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (token) headers.Authorization = `Bearer ${token}`;
    const method = s.http_method ?? "POST";
    // A GET webhook gets the message in the query (a GET has no body).
    const url =
      method === "GET"
        ? `${s.http_url}${s.http_url.includes("?") ? "&" : "?"}${new URLSearchParams({ title: msg.title, message: msg.message }).toString()}`
        : s.http_url;
    await fetchUrl(url, { ...base, method, headers, ...(method === "GET" ? {} : { body: JSON.stringify(msg) }) });
  }
}

/** ntfy reads the Title header as UTF-8 only when RFC 2047-encoded; plain ASCII goes as is. */
function encodeHeader(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text).toString("base64")}?=`;
}

/** A delivery failure as a client may read it: the kind and status, never a URL with secrets. */
export function failureText(err: unknown): string {
  if (err instanceof OutboundHttpError) return err.kind === "http_status" ? `the endpoint answered HTTP ${err.status}` : err.message;
  return (err as Error | undefined)?.message ?? "unknown error";
}
