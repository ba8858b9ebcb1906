/**
 * A client of the gPodder API v2 (https://gpoddernet.readthedocs.io/en/latest/api/reference/), as
 * gpodder.net publishes it and opodsync, micro-gpodder-server and gpodder2go implement it. It logs in
 * once (POST auth/{user}/login.json with Basic credentials) and then sends the session cookie; servers
 * that set no cookie get the Basic credentials on every request, which the API also allows.
 * The Nextcloud gpoddersync app speaks the same JSON under other paths, with Basic credentials (an
 * app password) on every request and no devices: flavor "nextcloud".
 * Everything goes through shared/http.ts.
 */
import { fetchUrl, FetchOptions, OutboundHttpError, Rights } from "../../shared/http";

export interface GpodderDevice {
  id: string;
  caption: string;
  type: string;
  subscriptions: number;
}

export interface SubscriptionChanges {
  add: string[];
  remove: string[];
  timestamp: number;
}

/** An episode action as the API carries it; timestamps are UTC without a zone ("2009-12-12T09:00:00"). */
export interface EpisodeAction {
  podcast: string;
  episode: string;
  device?: string;
  /** "play", "download", "delete" or "new" (any case, as devices send it). */
  action: string;
  timestamp?: string;
  started?: number;
  position?: number;
  total?: number;
}

export interface GpodderAccount {
  url: string;
  username: string;
  password: string;
  /** The rights the account was saved with: what the outbound address policy lets it reach. */
  rights: Rights;
}

const TIMEOUT_MS = 20_000;
const MAX_BYTES = 20 * 1024 * 1024;

/** ISO time as the API writes it: UTC, seconds, no zone letter. */
export function apiTime(d: Date): string {
  return d.toISOString().slice(0, 19);
}

/** The API's timestamps carry no zone and mean UTC; some servers add "Z" or an offset anyway. */
export function parseApiTime(t: string | undefined): Date | null {
  if (!t) return null;
  const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(t) ? t : `${t}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

const NEXTCLOUD_APP = "/index.php/apps/gpoddersync";

export class GpodderClient {
  private cookie: string | null = null;
  private readonly base: string;
  private readonly user: string;
  private readonly nextcloud: boolean;

  constructor(
    private readonly account: GpodderAccount,
    flavor: "gpodder" | "nextcloud" = "gpodder",
  ) {
    this.base = account.url.replace(/\/+$/, "");
    this.user = encodeURIComponent(account.username);
    this.nextcloud = flavor === "nextcloud";
  }

  /** POST auth/{user}/login.json; an HTTP 401 means wrong credentials (OutboundHttpError status 401). Nextcloud: one read checks them. */
  async login(): Promise<void> {
    if (this.nextcloud) {
      await this.request("GET", `${NEXTCLOUD_APP}/subscriptions?since=${Math.floor(Date.now() / 1000)}`, undefined);
      return;
    }
    const res = await this.request("POST", `/api/2/auth/${this.user}/login.json`, undefined, true);
    const session = res.setCookie.map((c) => c.split(";")[0]).filter(Boolean);
    this.cookie = session.length ? session.join("; ") : null;
  }

  async devices(): Promise<GpodderDevice[]> {
    if (this.nextcloud) return [];
    return this.json("GET", `/api/2/devices/${this.user}.json`);
  }

  /** Creates or updates a device (the API has one call for both). */
  async saveDevice(deviceId: string, caption: string, type: string): Promise<void> {
    if (this.nextcloud) return;
    await this.request("POST", `/api/2/devices/${this.user}/${encodeURIComponent(deviceId)}.json`, { caption, type });
  }

  async subscriptionChanges(deviceId: string, since: number): Promise<SubscriptionChanges> {
    const path = this.nextcloud ? `${NEXTCLOUD_APP}/subscriptions` : `/api/2/subscriptions/${this.user}/${encodeURIComponent(deviceId)}.json`;
    const r = await this.json<{ add?: unknown; remove?: unknown; timestamp?: unknown } | null>("GET", `${path}?since=${since}`);
    return { add: strings(r?.add), remove: strings(r?.remove), timestamp: Number(r?.timestamp) || 0 };
  }

  async uploadSubscriptions(deviceId: string, add: string[], remove: string[]): Promise<number> {
    const path = this.nextcloud ? `${NEXTCLOUD_APP}/subscription_change/create` : `/api/2/subscriptions/${this.user}/${encodeURIComponent(deviceId)}.json`;
    const r = await this.json<{ timestamp?: unknown } | null>("POST", path, { add, remove });
    return Number(r?.timestamp) || 0;
  }

  async episodeActions(since: number): Promise<{ actions: EpisodeAction[]; timestamp: number }> {
    const path = this.nextcloud ? `${NEXTCLOUD_APP}/episode_action` : `/api/2/episodes/${this.user}.json`;
    const r = await this.json<{ actions?: unknown; timestamp?: unknown } | null>("GET", `${path}?since=${since}`);
    const list: unknown[] = Array.isArray(r?.actions) ? r.actions : [];
    const actions = list.filter(
      (a): a is EpisodeAction => !!a && typeof (a as EpisodeAction).podcast === "string" && typeof (a as EpisodeAction).episode === "string",
    );
    return { actions, timestamp: Number(r?.timestamp) || 0 };
  }

  async uploadEpisodeActions(actions: EpisodeAction[]): Promise<number> {
    const r = await this.json<{ timestamp?: unknown } | null>(
      "POST",
      this.nextcloud ? `${NEXTCLOUD_APP}/episode_action/create` : `/api/2/episodes/${this.user}.json`,
      actions,
    );
    return Number(r?.timestamp) || 0;
  }

  private async json<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    const res = await this.request(method, path, body);
    try {
      return JSON.parse(res.body?.toString("utf8") || "null") as T; // the caller reads it defensively
    } catch {
      throw new OutboundHttpError("http_status", `${this.base}${path.split("?")[0]}`, "the sync server did not answer JSON", res.status);
    }
  }

  private request(method: "GET" | "POST", path: string, body: unknown, basic = false) {
    const opts: FetchOptions = {
      method,
      timeoutMs: TIMEOUT_MS,
      maxBytes: MAX_BYTES,
      accept: "application/json",
      rights: this.account.rights,
      headers: { ...(body !== undefined ? { "Content-Type": "application/json" } : {}), ...(this.cookie ? { Cookie: this.cookie } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(basic || !this.cookie ? { username: this.account.username, password: this.account.password } : {}),
    };
    return fetchUrl(this.base + path, opts);
  }
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}
