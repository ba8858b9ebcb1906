/**
 * The client address of a request, for per-address limits: the socket's peer, or, when that peer is one
 * of TRUSTED_PROXIES, the nearest X-Forwarded-For hop that is not a trusted proxy (hops left of it
 * could be written by the client itself).
 */
import net from "net";

/** "::ffff:192.0.2.1" (IPv4 on a dual-stack socket) -> "192.0.2.1". */
function plain(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1] : address;
}

function family(address: string): "ipv4" | "ipv6" | null {
  return net.isIPv4(address) ? "ipv4" : net.isIPv6(address) ? "ipv6" : null;
}

let cached: { key: string; list: net.BlockList } | null = null;

/** Addresses and CIDRs as a BlockList (used as an allow list); throws on an entry that is neither. */
export function trustedProxyList(entries: string[]): net.BlockList {
  const key = entries.join(",");
  if (cached?.key === key) return cached.list;
  const list = new net.BlockList();
  for (const entry of entries) {
    const [raw, bits, extra] = entry.split("/");
    const address = plain(raw);
    const type = family(address);
    const prefix = Number(bits);
    const max = type === "ipv4" ? 32 : 128;
    if (!type || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && prefix <= max))) {
      throw new Error(`TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range`);
    }
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  cached = { key, list };
  return list;
}

export function clientAddress(peer: string | undefined, forwardedFor: string | string[] | undefined, trusted: string[]): string {
  let address = plain(peer || "unknown");
  if (!trusted.length || !forwardedFor) return address;
  const list = trustedProxyList(trusted);
  const hops = [forwardedFor].flat().join(",").split(",").map((h) => plain(h.trim()));
  const isTrusted = (a: string) => list.check(a, family(a)!);
  while (family(address) && isTrusted(address) && hops.length) {
    const hop = hops.pop()!;
    if (!family(hop)) break; // garbage from the client's side of the chain: the last proxy's view stands
    address = hop;
  }
  return address;
}
