/** The client address behind trusted proxies: only X-Forwarded-For hops a trusted proxy vouches for count. */
import { clientAddress, trustedProxyList } from "../../shared/client-address";

describe("clientAddress", () => {
  const trusted = ["127.0.0.1", "10.0.0.0/8", "fd00::/8"];

  test("without trusted proxies, or from an untrusted peer, the socket's peer is the client", () => {
    expect(clientAddress("::ffff:192.0.2.1", "198.51.100.7", [])).toBe("192.0.2.1");
    expect(clientAddress("192.0.2.1", "198.51.100.7", trusted)).toBe("192.0.2.1");
    expect(clientAddress(undefined, undefined, trusted)).toBe("unknown");
  });

  test("from a trusted peer: the nearest hop that is not a trusted proxy", () => {
    expect(clientAddress("::ffff:127.0.0.1", "198.51.100.7", trusted)).toBe("198.51.100.7");
    expect(clientAddress("127.0.0.1", "203.0.113.5, 198.51.100.7, 10.1.2.3", trusted)).toBe("198.51.100.7");
    expect(clientAddress("127.0.0.1", ["203.0.113.5", "10.1.2.3"], trusted)).toBe("203.0.113.5");
    expect(clientAddress("fd00::1", "2001:db8::7", trusted)).toBe("2001:db8::7");
    // Garbage on the client's side: the last trusted hop's view stands.
    expect(clientAddress("127.0.0.1", "not-an-ip, 10.9.9.9", trusted)).toBe("10.9.9.9");
    expect(clientAddress("127.0.0.1", "not-an-ip", trusted)).toBe("127.0.0.1");
    expect(clientAddress("127.0.0.1", "", trusted)).toBe("127.0.0.1");
  });

  test("entries that are not an address or CIDR are refused by name", () => {
    for (const bad of ["10.0.0.0/33", "example.org", "10.0.0.0/8/1", "::1/129", "10.0.0.0/x"]) {
      expect(() => trustedProxyList([bad])).toThrow(`TRUSTED_PROXIES: "${bad}"`);
    }
    expect(() => trustedProxyList(["::1", "192.168.0.0/16", "::ffff:10.0.0.1"])).not.toThrow();
  });
});
