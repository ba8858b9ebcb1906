/**
 * The client address of a request, for per-address limits: the socket's peer, or, when that peer is one
 * of TRUSTED_PROXIES, the nearest X-Forwarded-For hop that is not a trusted proxy (hops left of it
 * could be written by the client itself).
 */
import type net from "net";
import { addressList, ipFamily, unmapped } from "./address-list";
import { config } from "./config";
import type { GatewayMeta } from "./types";

/** TRUSTED_PROXIES as an allow list; throws on an entry that is neither an address nor a CIDR range. */
export function trustedProxyList(entries: string[]): net.BlockList {
  return addressList("TRUSTED_PROXIES", entries);
}

export function clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, trusted: string[]): string {
  let address = unmapped(peer || "unknown");
  if (!trusted.length || !forwardedFor) return address;
  const list = trustedProxyList(trusted);
  const hops = [forwardedFor]
    .flat()
    .join(",")
    .split(",")
    .map((h) => unmapped(h.trim()));
  const isTrusted = (a: string) => list.check(a, ipFamily(a)!);
  while (ipFamily(address) && isTrusted(address) && hops.length) {
    const hop = hops.pop()!;
    if (!ipFamily(hop)) break; // garbage from the client's side of the chain: the last proxy's view stands
    address = hop;
  }
  return address;
}

/** Where clients reach this server (API_URL, else the request's own origin), without a trailing slash. */
export function publicOrigin(meta: Pick<GatewayMeta, "requestOrigin">): string {
  return (config.apiUrl || meta.requestOrigin || "").replace(/\/+$/, "");
}
