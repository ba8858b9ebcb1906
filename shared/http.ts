/**
 * The one outbound HTTP client of the server (house rule 8, docs/architecture.md): feeds, media and the image proxy all
 * fetch through fetchUrl. Redirects are followed by hand (axios maxRedirects: 0) so that every hop is
 * checked against the outbound URL policy and credentials never travel to another host.
 */
import dns from "dns";
import http from "http";
import https from "https";
import net from "net";
import type { Readable } from "stream";
import axios, { type AxiosHeaderValue, AxiosResponse } from "axios";
import { addressList } from "./address-list";
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
  /** Whose rights the fetch uses under the outbound URL policy (rightsOf(ctx.meta.user); a stored feed's own). */
  rights: Rights;
  /** Accept header; default any type. */
  accept?: string;
  /** Most redirects followed; default config.httpMaxRedirects. */
  maxRedirects?: number;
  /** Range header (media proxying); the answer may then be a 206. */
  range?: string;
  /** Sync servers and notification endpoints take other methods, a body and their own headers (cookies, tokens, a provider's request signature). */
  method?: "GET" | "POST" | "PUT";
  body?: string | Buffer;
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
  /**
   * Where the requested URL moved for good: the URL reached by the redirects that are permanent (301, 308) from
   * the first one on (a temporary one after them does not count); null when the first answer was no permanent redirect.
   */
  movedTo: string | null;
  /** Validators of the answer; on a 304 that omits them, the ones that were sent. */
  etag: string | null;
  lastModified: string | null;
  contentType: string | null;
  /** Set-Cookie headers of the final answer (a sync server's session cookie). */
  setCookie: string[];
}

export type OutboundHttpErrorKind = "timeout" | "too_large" | "http_status" | "network" | "blocked_address" | "too_many_redirects" | "invalid_url";

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

const BROWSER_USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * The outbound URL policy (house rule 8, docs/architecture.md, docs/library.md "Outbound URL policy"). Every URL a user supplies
 * is checked per hop, on the addresses its host resolves to:
 * - forbidden: link-local (cloud metadata lives there), other clouds' metadata addresses, "this
 *   network", multicast, reserved and documentation ranges. Refused for everyone, whatever the
 *   operator allows.
 * - private: loopback, RFC 1918, carrier-grade NAT (Tailscale), unique-local IPv6, benchmarking
 *   (fake-IP proxies). Reached with admin rights, or where OUTBOUND_ALLOW_PRIVATE allows it.
 * - public: everything else.
 * An IPv6 address that carries an IPv4 one (mapped, NAT64, IPv4-compatible, 6to4) counts as that IPv4
 * address; the WHATWG URL parser already turns decimal, octal, hex and short IPv4 spellings into dotted ones.
 */
const FORBIDDEN = new net.BlockList();
const PRIVATE = new net.BlockList();
for (const [list, type, ranges] of [
  [
    FORBIDDEN,
    "ipv4",
    [
      ["0.0.0.0", 8],
      ["169.254.0.0", 16],
      ["100.100.100.200", 32],
      ["192.0.0.0", 24],
      ["192.0.2.0", 24],
      ["198.51.100.0", 24],
      ["203.0.113.0", 24],
      ["224.0.0.0", 4],
      ["240.0.0.0", 4],
    ],
  ],
  // fd00:ec2::/64: AWS instance metadata (::254), DNS (::253) and time (::123); 2001::/23: IETF protocol assignments (Teredo).
  [
    FORBIDDEN,
    "ipv6",
    [
      ["::", 128],
      ["fe80::", 10],
      ["fd00:ec2::", 64],
      ["ff00::", 8],
      ["100::", 64],
      ["::ffff:0:0:0", 96],
      ["2001::", 23],
      ["2001:db8::", 32],
    ],
  ],
  [
    PRIVATE,
    "ipv4",
    [
      ["10.0.0.0", 8],
      ["100.64.0.0", 10],
      ["127.0.0.0", 8],
      ["172.16.0.0", 12],
      ["192.168.0.0", 16],
      ["198.18.0.0", 15],
    ],
  ],
  [
    PRIVATE,
    "ipv6",
    [
      ["::1", 128],
      ["fc00::", 7],
      ["fec0::", 10],
      ["64:ff9b:1::", 48],
    ],
  ],
] as const)
  for (const [prefix, bits] of ranges) list.addSubnet(prefix, bits, type);

export type AddressKind = "public" | "private" | "forbidden";

/** The 8 16-bit words of a valid IPv6 address (a dotted IPv4 tail included, a %zone left out). */
function ipv6Words(zoned: string): number[] {
  const address = zoned.replace(/%.*$/, "");
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const hex = tail ? address.slice(0, tail.index) + ((+tail[1] << 8) | +tail[2]).toString(16) + ":" + ((+tail[3] << 8) | +tail[4]).toString(16) : address;
  const [head, rest] = hex.split("::").map((part) => (part ? part.split(":") : []));
  const words = rest === undefined ? head : [...head, ...Array<string>(8 - head.length - rest.length).fill("0"), ...rest];
  return words.map((w) => parseInt(w, 16));
}

/** The IPv4 address an IPv6 one reaches: ::ffff:a.b.c.d, 64:ff9b::a.b.c.d (NAT64), ::a.b.c.d, 2002:AABB:CCDD:: (6to4). */
function embeddedIPv4(address: string): string | null {
  const w = ipv6Words(address);
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  const dotted = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
  if (zero(0, 5) && (w[5] === 0xffff || (w[5] === 0 && (w[6] !== 0 || w[7] > 1)))) return dotted(w[6], w[7]);
  if (w[0] === 0x64 && w[1] === 0xff9b && zero(2, 6)) return dotted(w[6], w[7]);
  if (w[0] === 0x2002) return dotted(w[1], w[2]);
  return null;
}

/** The address a connection really reaches, as the policy judges it. */
function effectiveAddress(address: string): { address: string; type: "ipv4" | "ipv6" } {
  const family = net.isIP(address);
  if (family === 0) throw new Error(`not an IP address: ${address}`);
  const v4 = family === 4 ? address : embeddedIPv4(address);
  return v4 ? { address: v4, type: "ipv4" } : { address, type: "ipv6" };
}

/** Which class of the outbound URL policy an IP address belongs to. */
export function addressKind(address: string): AddressKind {
  const a = effectiveAddress(address);
  return FORBIDDEN.check(a.address, a.type) ? "forbidden" : PRIVATE.check(a.address, a.type) ? "private" : "public";
}

/** Whose rights an outbound fetch uses: an admin's reach loopback and private networks, a user's only what the operator allows. */
export type Rights = "admin" | "user";

export function rightsOf(user: { isAdmin?: boolean } | null | undefined): Rights {
  return user?.isAdmin ? "admin" : "user";
}

/** OUTBOUND_ALLOW_PRIVATE parsed: "all", or the private addresses / CIDRs users may reach (possibly none). */
function operatorAllowance(value: string): "all" | net.BlockList {
  const word = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(word)) return "all";
  const entries = ["", "0", "false", "no", "off"].includes(word)
    ? []
    : value
        .split(",")
        .map((e) => e.trim())
        .filter(Boolean);
  return addressList("OUTBOUND_ALLOW_PRIVATE (or PROXY_ALLOW_PRIVATE)", entries);
}
operatorAllowance(config.outboundAllowPrivate); // a malformed setting stops the server at start, not a request later

/**
 * The outbound URL policy as one question: why may a fetch with these rights not reach this IP address
 * (null: it may). Forbidden addresses stay refused even when the operator's list names them.
 */
export function addressRefusal(address: string, rights: Rights, allowPrivate = config.outboundAllowPrivate): string | null {
  const kind = addressKind(address);
  if (kind === "forbidden") return "link-local, cloud metadata and reserved addresses are always refused";
  if (kind === "public" || rights === "admin") return null;
  const allowed = operatorAllowance(allowPrivate);
  const a = effectiveAddress(address);
  if (allowed === "all" || allowed.check(a.address, a.type)) return null;
  return "loopback and private network addresses are for admins only unless the server's operator allows them";
}

// Pooled connections, one pool per rights: a socket an admin's fetch opened to a private address is never
// reused by a user's fetch of the same host name.
const agents: Record<Rights, { http: http.Agent; https: https.Agent }> = {
  admin: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
  user: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
};

type Address = { address: string; family: number };

/**
 * Resolves the host of a hop and refuses it when any of its addresses is refused; the connection is then
 * made to these checked addresses (no second lookup that a rebinding DNS server could answer differently).
 */
async function resolveChecked(url: URL, shown: string, rights: Rights): Promise<Address[]> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: Address[];
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await dns.promises.lookup(host, { all: true });
    } catch (err) {
      throw new OutboundHttpError("network", shown, `cannot resolve ${host}: ${(err as NodeJS.ErrnoException | null | undefined)?.code ?? "lookup failed"}`);
    }
  }
  if (addresses.length === 0) throw new OutboundHttpError("network", shown, `cannot resolve ${host}: no address`);
  for (const a of addresses) {
    const why = addressRefusal(a.address, rights);
    if (why) throw new OutboundHttpError("blocked_address", shown, `This address is not allowed: ${why}`);
  }
  return addresses;
}

/**
 * Why a URL stored now for later fetches with these rights will be refused then (null: nothing against it
 * yet). A host name that does not resolve here and now is not held against it; every fetch checks again.
 */
export async function destinationRefusal(rawUrl: string, rights: Rights): Promise<string | null> {
  try {
    const url = parseHttpUrl(rawUrl);
    await resolveChecked(url, redactUrl(url.href), rights);
    return null;
  } catch (err) {
    if (err instanceof OutboundHttpError && err.kind !== "network") return err.message;
    return null;
  }
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
  const v = res.headers[name] as AxiosHeaderValue | undefined; // axios's own value type (its index gives any)
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
      // axios types the request as any: Node's ClientRequest here.
      (res.request as { destroy?: () => void } | null | undefined)?.destroy?.();
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
    stream.on("error", (err: NodeJS.ErrnoException | null | undefined) => {
      if (signal.aborted) return onAbort();
      fail(new OutboundHttpError("network", shown, `body interrupted: ${err?.code ?? err?.message ?? "error"}`));
    });
  });
}

function discard(res: AxiosResponse): void {
  (res.data as Readable).destroy();
}

/** A fetch whose body is left to the caller as a stream (media): the deadline covers the headers only. */
export interface StreamResult extends Omit<FetchResult, "body" | "notModified"> {
  stream: Readable;
  contentLength: number | null;
  contentRange: string | null;
}

/** GET (or opts.method) a URL through the server's one outbound client. Throws OutboundHttpError on any failure. */
export function fetchUrl(rawUrl: string, opts: FetchOptions): Promise<FetchResult> {
  return fetchAny(rawUrl, opts, false) as Promise<FetchResult>;
}

/**
 * GET a URL whose body the caller reads as it arrives (downloads, the stream proxy): same guard,
 * redirects and size cap (checked on the declared length; the caller counts the bytes), identity encoding
 * so that lengths and ranges stay byte-exact. Destroy the stream to give up.
 */
export function fetchStream(rawUrl: string, opts: FetchOptions): Promise<StreamResult> {
  return fetchAny(rawUrl, opts, true) as Promise<StreamResult>;
}

async function fetchAny(rawUrl: string, opts: FetchOptions, asStream: boolean): Promise<FetchResult | StreamResult> {
  let url = parseHttpUrl(rawUrl);
  let username = opts.username;
  let password = opts.password;
  if (username === undefined && (url.username || url.password)) {
    username = decodeUserinfo(url.username);
    password = decodeUserinfo(url.password);
  }
  url.username = "";
  url.password = "";
  const authorization = username !== undefined ? "Basic " + Buffer.from(`${username}:${password ?? ""}`).toString("base64") : null;
  const authHost = url.hostname;

  const maxBytes = opts.maxBytes ?? config.httpMaxBytes;
  const maxRedirects = opts.maxRedirects ?? config.httpMaxRedirects;
  const pool = agents[opts.rights];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs ?? config.httpTimeoutMs);
  let userAgent = opts.userAgent ?? `${config.serviceName}/${config.version}`;
  let retried403 = opts.userAgent !== undefined;
  let retriedReset = false;
  let sendAuth = authorization !== null;
  let trusted = true; // the caller's headers (tokens, cookies) follow the same rule as credentials
  let method = opts.method ?? "GET";
  let body = opts.body;
  let movedTo: string | null = null;
  let permanent = true; // every redirect so far was permanent

  try {
    for (let redirects = 0; ;) {
      const target = url.href; // never carries credentials: they travel in the Authorization header
      const shown = redactUrl(target);
      const pinned = await resolveChecked(url, shown, opts.rights);
      const headers: Record<string, string> = {
        ...(trusted ? opts.headers : undefined),
        "User-Agent": userAgent,
        Accept: opts.accept ?? "*/*",
        "Accept-Encoding": asStream ? "identity" : "gzip, deflate, br",
      };
      if (opts.range) headers.Range = opts.range;
      if (sendAuth && authorization) headers.Authorization = authorization;
      if (opts.etag) headers["If-None-Match"] = opts.etag;
      if (opts.lastModified) headers["If-Modified-Since"] = opts.lastModified;

      let res: AxiosResponse;
      try {
        res = await axios.request({
          url: target,
          method,
          data: body,
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
          // Must stay an async function: axios takes a lookup for promise-returning only when it is one
          // (helpers/callbackify.js, utils.isAsyncFn); any other function is called Node's callback way.
          lookup: async () => pinned,
        });
      } catch (caught) {
        // What is read of an axios error (its request is Node's ClientRequest, which axios types as any).
        const err = caught as { code?: string; message?: string; request?: { reusedSocket?: boolean } } | null | undefined;
        // Only the code and message are kept: the axios error carries the request headers (credentials).
        if (controller.signal.aborted) throw new OutboundHttpError("timeout", shown, "timed out");
        // A pooled socket that the server closed as idle just as it was reused: the request never reached the
        // server, and a GET is sent once more on a new socket, as Node's documentation advises.
        if (!retriedReset && method === "GET" && err?.request?.reusedSocket && (err.code === "ECONNRESET" || err.code === "EPIPE")) {
          retriedReset = true;
          continue;
        }
        throw new OutboundHttpError("network", shown, `request failed: ${err?.code ?? err?.message ?? "error"}`);
      }

      const status = res.status;
      if (REDIRECT_STATUSES.has(status) && res.headers.location) {
        discard(res);
        if (++redirects > maxRedirects) throw new OutboundHttpError("too_many_redirects", shown, `more than ${maxRedirects} redirects`);
        const next = parseHttpUrl(String(res.headers.location), target);
        next.username = "";
        next.password = "";
        // Credentials stay with the host they were given for, and never go down from https to http.
        if (next.hostname !== authHost || (url.protocol === "https:" && next.protocol === "http:")) sendAuth = trusted = false;
        permanent &&= status === 301 || status === 308;
        if (permanent) movedTo = next.href;
        url = next;
        // As browsers do: a 303, and a 301/302 after a POST, continue as a GET without the body.
        if (status !== 307 && status !== 308) {
          method = "GET";
          body = undefined;
        }
        continue;
      }
      if (status === 403 && !retried403 && method === "GET") {
        // Some hosts refuse anything that does not look like a browser: one retry with a browser's User-Agent.
        discard(res);
        retried403 = true;
        userAgent = BROWSER_USER_AGENT;
        continue;
      }
      const etag = header(res, "etag");
      const lastModified = header(res, "last-modified");
      const contentType = header(res, "content-type");
      const setCookie = ([] as string[]).concat(res.headers["set-cookie"] ?? []);
      if (status === 304) {
        discard(res);
        return {
          status,
          notModified: true,
          body: null,
          finalUrl: target,
          movedTo,
          etag: etag ?? opts.etag ?? null,
          lastModified: lastModified ?? opts.lastModified ?? null,
          contentType,
          setCookie,
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
      if (asStream) {
        const contentRange = header(res, "content-range");
        return {
          status,
          stream: res.data as Readable,
          finalUrl: target,
          movedTo,
          etag,
          lastModified,
          contentType,
          setCookie,
          contentRange,
          contentLength: Number.isFinite(declared) ? declared : null,
        };
      }
      const data = await readBody(res, maxBytes, controller.signal, shown);
      return { status, notModified: false, body: data, finalUrl: target, movedTo, etag, lastModified, contentType, setCookie };
    }
  } finally {
    clearTimeout(timer);
  }
}
