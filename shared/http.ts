/**
 * The one outbound HTTP client of the server (DESIGN.md rule 8): feeds, media and the image proxy all
 * fetch through fetchUrl. Redirects are followed by hand (axios maxRedirects: 0) so that every hop is
 * checked against the SSRF guard and credentials never travel to another host.
 */
import dns from "dns";
import http from "http";
import https from "https";
import net from "net";
import type { Readable } from "stream";
import axios, { AxiosResponse } from "axios";
import { config } from "./config";

export interface FetchOptions {
  /** Validators of a previous answer: sent as If-None-Match / If-Modified-Since. */
  etag?: string | null;
  lastModified?: string | null;
  /** Basic-auth credentials (also taken from user:pass@ in the URL when these are not given). */
  username?: string;
  password?: string;
  /** Largest decoded body; more gives OutboundHttpError "too_large". Default config.httpMaxBytes. */
  maxBytes?: number;
  /** Deadline for the whole fetch (every hop, the retry and the body). Default config.httpTimeoutMs. */
  timeoutMs?: number;
  /** false refuses loopback, link-local and private addresses (image proxy) except those PROXY_ALLOW_PRIVATE lets through. */
  allowPrivate?: boolean;
  /** Accept header; default any type. */
  accept?: string;
  /** Most redirects followed; default config.httpMaxRedirects. */
  maxRedirects?: number;
  /** Extra request headers (e.g. a provider's request signature). */
  headers?: Record<string, string>;
  /** A fixed User-Agent: sent on every hop, with no browser-lookalike retry on 403. */
  userAgent?: string;
}

export interface FetchResult {
  /** Final status: a 2xx, or 304 when notModified. */
  status: number;
  notModified: boolean;
  /** Decoded bytes (gzip, deflate, br), or null on 304. */
  body: Buffer | null;
  /** URL of the final hop, without credentials. */
  finalUrl: string;
  /** Validators of the answer; on a 304 that omits them, the ones that were sent. */
  etag: string | null;
  lastModified: string | null;
  contentType: string | null;
}

export type OutboundHttpErrorKind =
  | "timeout"
  | "too_large"
  | "http_status"
  | "network"
  | "blocked_address"
  | "too_many_redirects"
  | "invalid_url";

export class OutboundHttpError extends Error {
  kind: OutboundHttpErrorKind;
  /** The HTTP status for "http_status". */
  status?: number;
  /** The URL that failed, without credentials. */
  url: string;
  constructor(kind: OutboundHttpErrorKind, url: string, detail: string, status?: number) {
    super(`${detail} (${url})`);
    this.name = "OutboundHttpError";
    this.kind = kind;
    this.url = url;
    if (status !== undefined) this.status = status;
  }
}

/**
 * The URL without user:pass and without its query string (private feeds put tokens there, e.g.
 * ?auth=...), safe for messages and logs; unparsable input is cut before any "@" and "?".
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const query = u.search ? "?…" : "";
    u.username = "";
    u.password = "";
    u.search = "";
    u.hash = "";
    return u.href + query;
  } catch {
    return url.replace(/\/\/[^/@]*@/, "//").replace(/\?.*$/, "?…");
  }
}

const BROWSER_USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Addresses the guard refuses; IPv4-mapped IPv6 addresses are matched against the IPv4 rules. */
const BLOCKED = new net.BlockList();
for (const [prefix, bits] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16],
  ["172.16.0.0", 12], ["192.0.0.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) BLOCKED.addSubnet(prefix, bits, "ipv4");
for (const [prefix, bits] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8]] as const)
  BLOCKED.addSubnet(prefix, bits, "ipv6");

type Exempt = "all" | net.BlockList;
let exemptCache: { value: string; exempt: Exempt } | null = null;

/** PROXY_ALLOW_PRIVATE parsed: "all", or the addresses / CIDRs let through the guard (possibly none). */
function exemptions(value: string): Exempt {
  if (exemptCache?.value === value) return exemptCache.exempt;
  const word = value.trim().toLowerCase();
  let exempt: Exempt;
  if (["1", "true", "yes", "on"].includes(word)) exempt = "all";
  else {
    exempt = new net.BlockList();
    if (!["", "0", "false", "no", "off"].includes(word)) {
      for (const entry of value.split(",").map((e) => e.trim()).filter(Boolean)) {
        const [address, bits] = entry.split("/");
        const family = net.isIP(address);
        const type = family === 6 ? "ipv6" : "ipv4";
        if (family === 0 || (bits !== undefined && !/^\d+$/.test(bits)))
          throw new Error(`PROXY_ALLOW_PRIVATE: "${entry}" is not an address or CIDR`);
        if (bits === undefined) exempt.addAddress(address, type);
        else exempt.addSubnet(address, Number(bits), type);
      }
    }
  }
  exemptCache = { value, exempt };
  return exempt;
}

/** True for loopback, link-local, private and other non-public addresses (IPv4-mapped IPv6 included). */
export function isBlockedAddress(address: string): boolean {
  const family = net.isIP(address);
  return family !== 0 && BLOCKED.check(address, family === 6 ? "ipv6" : "ipv4");
}

function refused(address: string, exempt: net.BlockList): boolean {
  const type = net.isIP(address) === 6 ? "ipv6" : "ipv4";
  return isBlockedAddress(address) && !exempt.check(address, type);
}

// Pooled connections; guarded fetches keep their own pool so that they never reuse a socket opened
// without the check.
const agents = {
  open: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
  guarded: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
};

type Address = { address: string; family: number };

/** Resolves the host of a hop and refuses it when any address is blocked; the answer is pinned for the connection. */
async function resolveGuarded(url: URL, shown: string, exempt: net.BlockList): Promise<Address[]> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: Address[];
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await dns.promises.lookup(host, { all: true });
    } catch (err: any) {
      throw new OutboundHttpError("network", shown, `cannot resolve ${host}: ${err?.code ?? "lookup failed"}`);
    }
  }
  if (addresses.length === 0 || addresses.some((a) => refused(a.address, exempt)))
    throw new OutboundHttpError("blocked_address", shown, `${host} is a private, loopback or link-local address`);
  return addresses;
}

function parseHttpUrl(raw: string, base?: string): URL {
  let url: URL;
  try {
    url = base === undefined ? new URL(raw) : new URL(raw, base);
  } catch {
    throw new OutboundHttpError("invalid_url", redactUrl(raw), "not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new OutboundHttpError("invalid_url", redactUrl(url.href), `unsupported protocol ${url.protocol}`);
  return url;
}

/** A URL's user:pass taken out of it: feeds are stored, shown and logged without them (kept apart as credentials). */
export function splitCredentials(raw: string): { url: string; username: string | null; password: string | null } {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { url: raw, username: null, password: null };
  }
  if (!u.username && !u.password) return { url: raw, username: null, password: null };
  const username = decodeUserinfo(u.username);
  const password = decodeUserinfo(u.password);
  u.username = "";
  u.password = "";
  return { url: u.href, username, password };
}

function decodeUserinfo(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part; // a stray "%" is taken literally
  }
}

function header(res: AxiosResponse, name: string): string | null {
  const v = res.headers[name];
  return v === undefined || v === null || v === "" ? null : String(v);
}

/** Reads the (already decoded) body stream, aborting as soon as it passes maxBytes or the deadline fires. */
function readBody(res: AxiosResponse, maxBytes: number, signal: AbortSignal, shown: string): Promise<Buffer> {
  const stream = res.data as Readable;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const fail = (err: OutboundHttpError) => {
      signal.removeEventListener("abort", onAbort);
      stream.destroy();
      res.request?.destroy?.();
      reject(err);
    };
    const onAbort = () => fail(new OutboundHttpError("timeout", shown, "timed out while reading the body"));
    signal.addEventListener("abort", onAbort);
    stream.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) return fail(new OutboundHttpError("too_large", shown, `body larger than ${maxBytes} bytes`));
      chunks.push(chunk);
    });
    stream.on("end", () => {
      signal.removeEventListener("abort", onAbort);
      resolve(Buffer.concat(chunks, total));
    });
    stream.on("error", (err: any) => {
      if (signal.aborted) return onAbort();
      fail(new OutboundHttpError("network", shown, `body interrupted: ${err?.code ?? err?.message ?? "error"}`));
    });
  });
}

function discard(res: AxiosResponse): void {
  (res.data as Readable).destroy();
}

/** GET a URL through the server's one outbound client. Throws OutboundHttpError on any failure. */
export async function fetchUrl(rawUrl: string, opts: FetchOptions = {}): Promise<FetchResult> {
  let url = parseHttpUrl(rawUrl);
  let username = opts.username;
  let password = opts.password;
  if (username === undefined && (url.username || url.password)) {
    username = decodeUserinfo(url.username);
    password = decodeUserinfo(url.password);
  }
  url.username = "";
  url.password = "";
  const authorization =
    username !== undefined ? "Basic " + Buffer.from(`${username}:${password ?? ""}`).toString("base64") : null;
  const authHost = url.hostname;

  const maxBytes = opts.maxBytes ?? config.httpMaxBytes;
  const maxRedirects = opts.maxRedirects ?? config.httpMaxRedirects;
  const exempt = opts.allowPrivate === false ? exemptions(config.proxyAllowPrivate) : "all";
  const pool = exempt === "all" ? agents.open : agents.guarded;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs ?? config.httpTimeoutMs);
  let userAgent = opts.userAgent ?? `${config.serviceName}/${config.version}`;
  let retried403 = opts.userAgent !== undefined;
  let sendAuth = authorization !== null;

  try {
    for (let redirects = 0; ; ) {
      const target = url.href; // never carries credentials: they travel in the Authorization header
      const shown = redactUrl(target);
      const pinned = exempt === "all" ? null : await resolveGuarded(url, shown, exempt);
      const headers: Record<string, string> = {
        ...opts.headers,
        "User-Agent": userAgent,
        Accept: opts.accept ?? "*/*",
        "Accept-Encoding": "gzip, deflate, br",
      };
      if (sendAuth && authorization) headers.Authorization = authorization;
      if (opts.etag) headers["If-None-Match"] = opts.etag;
      if (opts.lastModified) headers["If-Modified-Since"] = opts.lastModified;

      let res: AxiosResponse;
      try {
        res = await axios.get(target, {
          headers,
          responseType: "stream",
          maxRedirects: 0,
          validateStatus: () => true,
          decompress: true,
          maxContentLength: -1,
          proxy: false,
          signal: controller.signal,
          httpAgent: pool.http,
          httpsAgent: pool.https,
          ...(pinned ? { lookup: async () => pinned } : {}),
        });
      } catch (err: any) {
        // Only the code and message are kept: the axios error carries the request headers (credentials).
        if (controller.signal.aborted) throw new OutboundHttpError("timeout", shown, "timed out");
        throw new OutboundHttpError("network", shown, `request failed: ${err?.code ?? err?.message ?? "error"}`);
      }

      const status = res.status;
      if (REDIRECT_STATUSES.has(status) && res.headers.location) {
        discard(res);
        if (++redirects > maxRedirects)
          throw new OutboundHttpError("too_many_redirects", shown, `more than ${maxRedirects} redirects`);
        const next = parseHttpUrl(String(res.headers.location), target);
        next.username = "";
        next.password = "";
        // Credentials stay with the host they were given for, and never go down from https to http.
        if (next.hostname !== authHost || (url.protocol === "https:" && next.protocol === "http:")) sendAuth = false;
        url = next;
        continue;
      }
      if (status === 403 && !retried403) {
        // Some hosts refuse anything that does not look like a browser: one retry with a browser's User-Agent.
        discard(res);
        retried403 = true;
        userAgent = BROWSER_USER_AGENT;
        continue;
      }
      const etag = header(res, "etag");
      const lastModified = header(res, "last-modified");
      const contentType = header(res, "content-type");
      if (status === 304) {
        discard(res);
        return {
          status, notModified: true, body: null, finalUrl: target,
          etag: etag ?? opts.etag ?? null, lastModified: lastModified ?? opts.lastModified ?? null, contentType,
        };
      }
      if (status < 200 || status > 299) {
        discard(res);
        throw new OutboundHttpError("http_status", shown, `HTTP ${status}`, status);
      }
      const declared = Number(res.headers["content-length"]);
      // A declared length above the cap fails before reading; decoding only makes a body larger.
      if (Number.isFinite(declared) && declared > maxBytes) {
        discard(res);
        throw new OutboundHttpError("too_large", shown, `body of ${declared} bytes is larger than ${maxBytes}`);
      }
      const body = await readBody(res, maxBytes, controller.signal, shown);
      return { status, notModified: false, body, finalUrl: target, etag, lastModified, contentType };
    }
  } finally {
    clearTimeout(timer);
  }
}
