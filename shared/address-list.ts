/**
 * Settings that list addresses and CIDR ranges (TRUSTED_PROXIES, OUTBOUND_ALLOW_PRIVATE) parsed one way
 * into a net.BlockList, cached per setting value, so a malformed entry is refused with the same words
 * wherever it is read.
 */
import net from "net";

export type IpFamily = "ipv4" | "ipv6";

/** "ipv4", "ipv6", or null for anything that is not an IP address. */
export function ipFamily(address: string): IpFamily | null {
  return net.isIPv4(address) ? "ipv4" : net.isIPv6(address) ? "ipv6" : null;
}

/** "::ffff:192.0.2.1" (IPv4 on a dual-stack socket) -> "192.0.2.1". */
export function unmapped(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1] : address;
}

const cache = new Map<string, net.BlockList>();

/** The entries as a BlockList; throws `<setting>: "<entry>" is not an address or CIDR range` on a bad one. */
export function addressList(setting: string, entries: string[]): net.BlockList {
  const key = `${setting}\0${entries.join(",")}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const list = new net.BlockList();
  for (const entry of entries) {
    const [raw, bits, extra] = entry.split("/");
    const address = unmapped(raw);
    const type = ipFamily(address);
    const prefix = Number(bits);
    if (!type || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && prefix <= (type === "ipv4" ? 32 : 128)))) {
      throw new Error(`${setting}: "${entry}" is not an address or CIDR range`);
    }
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  cache.set(key, list);
  return list;
}
