/**
 * A gPodder API v2 server on loopback, written from the published reference
 * (https://gpoddernet.readthedocs.io/en/latest/api/reference/): auth (login with Basic credentials sets
 * a session cookie; Basic is accepted on every call too), devices, subscription changes per device
 * with `since`, and episode actions with `since`. Timestamps are integer seconds that grow with every
 * change, so `since` is exact in tests. Also a Nextcloud peer: Login Flow v2 and the gpoddersync
 * app's endpoints over the same store.
 */
import crypto from "crypto";
import type http from "http";
import { Loopback, startLoopback } from "./loopback";

export interface PeerAction {
  podcast: string;
  episode: string;
  device?: string;
  action: string;
  timestamp?: string;
  started?: number;
  position?: number;
  total?: number;
}

export interface GpodderPeer {
  loop: Loopback;
  url: string;
  devices: Map<string, { caption: string; type: string }>;
  /** Another client's change: subscribe or unsubscribe a device. */
  change(device: string, add: string[], remove: string[]): void;
  /** The device's current subscriptions. */
  subscriptions(device: string): string[];
  /** Another client uploads actions. */
  upload(actions: PeerAction[]): void;
  actions(): PeerAction[];
  /** Nextcloud login flow: the user approves a pending flow in the browser. */
  approveLogin(token: string): void;
  close(): Promise<void>;
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

export async function startGpodderPeer(username: string, password: string): Promise<GpodderPeer> {
  let clock = Math.floor(Date.now() / 1000);
  const tick = () => ++clock;
  const sessions = new Set<string>();
  const devices = new Map<string, { caption: string; type: string }>();
  const subLog: { device: string; url: string; op: "add" | "remove"; ts: number }[] = [];
  const actionLog: { action: PeerAction; ts: number }[] = [];
  const flows = new Map<string, boolean>(); // poll token -> approved

  const change = (device: string, add: string[], remove: string[]) => {
    if (!devices.has(device)) devices.set(device, { caption: device, type: "other" });
    const ts = tick();
    for (const url of add) subLog.push({ device, url, op: "add", ts });
    for (const url of remove) subLog.push({ device, url, op: "remove", ts });
    return ts;
  };
  const current = (device: string, since = 0) => {
    const state = new Map<string, "add" | "remove">();
    for (const e of subLog) if (e.device === device && e.ts > since) state.set(e.url, e.op);
    return state;
  };
  const upload = (actions: PeerAction[]) => {
    const ts = tick();
    for (const a of actions) actionLog.push({ action: a, ts });
    return ts;
  };

  function authorized(req: http.IncomingMessage, user: string): boolean {
    if (user !== username) return false;
    const cookie = /(?:^|;\s*)sessionid=([^;]+)/.exec(req.headers.cookie ?? "")?.[1];
    if (cookie && sessions.has(cookie)) return true;
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    return !!basic && Buffer.from(basic, "base64").toString("utf8") === `${username}:${password}`;
  }

  const handler = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const u = new URL(req.url ?? "/", "http://peer");
    const since = Number(u.searchParams.get("since") ?? "0");
    const body = req.method === "POST" ? await readBody(req) : "";
    let m: RegExpExecArray | null;

    // Nextcloud Login Flow v2 and gpoddersync.
    if (u.pathname === "/index.php/login/v2" && req.method === "POST") {
      const token = crypto.randomBytes(16).toString("hex");
      flows.set(token, false);
      return send(res, 200, { poll: { token, endpoint: `${peer.url}/index.php/login/v2/poll` }, login: `${peer.url}/index.php/login/v2/flow/${token}` });
    }
    if (u.pathname === "/index.php/login/v2/poll" && req.method === "POST") {
      const token = new URLSearchParams(body).get("token") ?? "";
      if (!flows.get(token)) return send(res, 404, []);
      flows.delete(token);
      return send(res, 200, { server: peer.url, loginName: username, appPassword: password });
    }
    if (u.pathname.startsWith("/index.php/apps/gpoddersync/")) {
      if (!authorized(req, username)) return send(res, 401, { message: "unauthorized" });
      const rest = u.pathname.slice("/index.php/apps/gpoddersync".length);
      if (rest === "/subscriptions" && req.method === "GET") return subsAnswer(res, "nextcloud", since);
      if (rest === "/subscription_change/create" && req.method === "POST") {
        const b = JSON.parse(body);
        return send(res, 200, { timestamp: change("nextcloud", b.add ?? [], b.remove ?? []) });
      }
      if (rest === "/episode_action" && req.method === "GET") return actionsAnswer(res, since);
      if (rest === "/episode_action/create" && req.method === "POST") return send(res, 200, { timestamp: upload(JSON.parse(body)) });
      return send(res, 404, {});
    }

    if ((m = /^\/api\/2\/auth\/([^/]+)\/login\.json$/.exec(u.pathname)) && req.method === "POST") {
      if (!authorized(req, decodeURIComponent(m[1]))) return send(res, 401, "");
      const sid = crypto.randomBytes(16).toString("hex");
      sessions.add(sid);
      return send(res, 200, "", { "Set-Cookie": `sessionid=${sid}; HttpOnly; Path=/` });
    }
    const routes: [RegExp, string, (m: RegExpExecArray) => void][] = [
      [
        /^\/api\/2\/devices\/([^/]+)\.json$/,
        "GET",
        () =>
          send(
            res,
            200,
            [...devices].map(([id, d]) => ({ id, caption: d.caption, type: d.type, subscriptions: [...current(id)].filter(([, op]) => op === "add").length })),
          ),
      ],
      [
        /^\/api\/2\/devices\/([^/]+)\/([\w.-]+)\.json$/,
        "POST",
        (mm) => {
          const b = body ? JSON.parse(body) : {};
          const d = devices.get(mm[2]) ?? { caption: mm[2], type: "other" };
          devices.set(mm[2], { caption: b.caption ?? d.caption, type: b.type ?? d.type });
          send(res, 200, {});
        },
      ],
      [/^\/api\/2\/subscriptions\/([^/]+)\/([\w.-]+)\.json$/, "GET", (mm) => subsAnswer(res, mm[2], since)],
      [
        /^\/api\/2\/subscriptions\/([^/]+)\/([\w.-]+)\.json$/,
        "POST",
        (mm) => {
          const b = JSON.parse(body);
          if ((b.add ?? []).some((x: string) => (b.remove ?? []).includes(x))) return send(res, 400, { message: "same URL added and removed" });
          send(res, 200, { timestamp: change(mm[2], b.add ?? [], b.remove ?? []), update_urls: [] });
        },
      ],
      [/^\/api\/2\/episodes\/([^/]+)\.json$/, "GET", () => actionsAnswer(res, since)],
      [/^\/api\/2\/episodes\/([^/]+)\.json$/, "POST", () => send(res, 200, { timestamp: upload(JSON.parse(body)), update_urls: [] })],
    ];
    for (const [re, method, run] of routes) {
      const mm = re.exec(u.pathname);
      if (!mm || req.method !== method) continue;
      if (!authorized(req, decodeURIComponent(mm[1]))) return send(res, 401, "");
      return run(mm);
    }
    send(res, 404, {});
  };

  function subsAnswer(res: http.ServerResponse, device: string, since: number) {
    const state = current(device, since);
    send(res, 200, {
      add: [...state].filter(([, op]) => op === "add").map(([url]) => url),
      remove: [...state].filter(([, op]) => op === "remove").map(([url]) => url),
      timestamp: clock,
    });
  }
  function actionsAnswer(res: http.ServerResponse, since: number) {
    send(res, 200, { actions: actionLog.filter((a) => a.ts > since).map((a) => a.action), timestamp: clock });
  }

  const loop = await startLoopback(handler);
  const peer: GpodderPeer = {
    loop,
    url: loop.url,
    devices,
    change: (device, add, remove) => void change(device, add, remove),
    subscriptions: (device) => [...current(device)].filter(([, op]) => op === "add").map(([url]) => url),
    upload: (actions) => void upload(actions),
    actions: () => actionLog.map((a) => a.action),
    approveLogin: (token) => void flows.set(token, true),
    close: () => loop.close(),
  };
  return peer;
}
