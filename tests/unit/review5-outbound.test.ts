/**
 * Security review 5: addresses the safe outbound fetch (webhooks, result
 * downloads) took for the public internet although they are not.
 *
 * IPv6 outside 2000::/3. All global unicast IPv6 is allocated from 2000::/3;
 * ipaddr.js names every address it has no special range for "unicast", which
 * let the deprecated IPv4-compatible form through: `::a9fe:a9fe` (written
 * `::169.254.169.254`, the metadata address) and `::7f00:1` (`::127.0.0.1`) were
 * accepted as webhook URLs. A host with the old automatic tunnel (sit) routes
 * them to the IPv4 address they carry; nothing legitimate lives there.
 */
import { describe, expect, test } from "bun:test";
import { addressRefusal, checkedAddress, OutboundRefused } from "~/lib/outbound.server";

describe("IPv6 outside global unicast space (2000::/3) is refused", () => {
  for (const ip of ["::a9fe:a9fe", "::169.254.169.254", "::7f00:1", "::127.0.0.1", "::8.8.8.8", "::1:2", "1000::1", "4000::1", "e000::1"]) {
    test(`refuses ${ip}, with or without allowPrivate`, () => {
      expect(addressRefusal(ip)).not.toBeNull();
      expect(addressRefusal(ip, true)).not.toBeNull();
    });
  }
  for (const ip of ["2606:4700::6810:85e5", "2a00:1450:4001:830::200e", "3fff:ffff::1"]) {
    test(`still allows global ${ip}`, () => expect(addressRefusal(ip)).toBeNull());
  }
  test("a URL or a DNS answer with such an address is refused before connecting", async () => {
    const literal = checkedAddress(new URL("http://[::a9fe:a9fe]/latest/meta-data/"));
    await expect(literal).rejects.toBeInstanceOf(OutboundRefused);
    await expect(literal).rejects.toMatchObject({ publicMessage: "::a9fe:a9fe is not a public internet address" });
    const named = checkedAddress(new URL("https://hooks.example.com/x"), { resolve: async () => ["::7f00:1"] });
    await expect(named).rejects.toMatchObject({ publicMessage: "hooks.example.com does not resolve to a public internet address" });
  });
});
