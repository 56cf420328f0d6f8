/**
 * Addresses the safe outbound fetch (webhooks, result downloads) must not take for the public internet
 * (docs/decisions/097-outbound-ipv6-global-unicast-only.md, docs/decisions/098-outbound-refuses-own-addresses.md).
 *
 * IPv6 outside 2000::/3. All global unicast IPv6 is allocated from 2000::/3; ipaddr.js names every address it has
 * no special range for "unicast", which would let the deprecated IPv4-compatible form through: `::a9fe:a9fe`
 * (written `::169.254.169.254`, the metadata address) and `::7f00:1` (`::127.0.0.1`). A host with the old automatic
 * tunnel (sit) routes them to the IPv4 address they carry; nothing legitimate lives there.
 */
import { describe, expect, test } from "bun:test";
import { networkInterfaces } from "node:os";
import { sendDelivery } from "~/domain/webhooks/delivery.server";
import { checkDestination } from "~/domain/webhooks/webhooks.server";
import { systemClock } from "~/lib/clock";
import {
  addressRefusal,
  checkedAddress,
  DNS_TIMEOUT_MS,
  OutboundRefused,
  safeFetch,
  serverAddresses,
} from "~/lib/outbound.server";

describe("IPv6 outside global unicast space (2000::/3) is refused", () => {
  for (const ip of [
    "::a9fe:a9fe",
    "::169.254.169.254",
    "::7f00:1",
    "::127.0.0.1",
    "::8.8.8.8",
    "::1:2",
    "1000::1",
    "4000::1",
    "e000::1",
  ]) {
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
    await expect(named).rejects.toMatchObject({
      publicMessage: "hooks.example.com does not resolve to a public internet address",
    });
  });
});

/**
 * The server's own addresses. A self-hoster's VPS usually carries its public
 * IPv4 and IPv6 on its network interface (not behind a cloud NAT). A webhook
 * (or a redirect of a result download) to that public address passed as
 * "public unicast", and the kernel delivered it locally — to PostgreSQL, an
 * admin panel or a metrics port bound to 0.0.0.0 that only the firewall keeps
 * from the outside world (loopback traffic passes typical firewall rules).
 */
describe("addresses this server holds are refused like loopback", () => {
  const OWN = "93.184.215.14"; // stands in for the VPS's public address
  const OWN6 = "2a01:4f8:c0c:1234::1";
  const local = () => [OWN, OWN6, "127.0.0.1", "::1"];

  test("an own public address is refused; other public addresses are not; allowPrivate admits it (tests, fakes)", () => {
    expect(addressRefusal(OWN, false, local())).toBe(`${OWN} is an address of this server`);
    expect(addressRefusal(OWN6, false, local())).not.toBeNull();
    expect(addressRefusal("2a01:04f8:0c0c:1234:0:0:0:1", false, local())).not.toBeNull(); // another spelling
    expect(addressRefusal(`::ffff:${OWN}`, false, local())).not.toBeNull(); // IPv4-mapped
    expect(addressRefusal("8.8.8.8", false, local())).toBeNull();
    expect(addressRefusal(OWN, true, local())).toBeNull();
  });

  test("a URL naming it, or a name resolving to it, is refused before connecting, with the requester's wording", async () => {
    await expect(checkedAddress(new URL(`http://${OWN}:5432/`), { localAddresses: local })).rejects.toMatchObject({
      publicMessage: `${OWN} is not a public internet address`,
    });
    await expect(
      checkedAddress(new URL("https://hooks.example.com/x"), { resolve: async () => [OWN6], localAddresses: local }),
    ).rejects.toMatchObject({
      publicMessage: "hooks.example.com does not resolve to a public internet address",
    });
    expect(
      await checkedAddress(new URL("https://hooks.example.com/x"), {
        resolve: async () => ["8.8.8.8"],
        localAddresses: local,
      }),
    ).toBe("8.8.8.8");
  });

  test("safeFetch and the webhook destination check use this machine's interfaces by default", async () => {
    const own = serverAddresses();
    expect(own).toContain("127.0.0.1");
    // Every IPv4 address of every interface is listed (the public one of a VPS among them).
    for (const list of Object.values(networkInterfaces()))
      for (const a of list ?? []) if (a.family === "IPv4") expect(own).toContain(a.address);
    const refused = safeFetch("http://own.example.test/", { resolve: async () => [OWN], localAddresses: local });
    await expect(refused).rejects.toBeInstanceOf(OutboundRefused);
    await expect(
      checkDestination("http://own.example.test/hook", {
        allowPrivate: false,
        resolve: async () => [OWN],
        localAddresses: local,
      }),
    ).rejects.toMatchObject({
      message: "invalid params: url refused: own.example.test does not resolve to a public internet address",
    });
  });
});

/**
 * A host whose DNS server never answers (docs/decisions/102-webhook-dns-timeout.md). If the attempt's timeout
 * (WEBHOOK_TIMEOUT_MS) started only after the lookup, a webhook at a name on the user's own slow DNS server would
 * hold a sender for as long as the system resolver waits (10–30 s with glibc's defaults), and the create request as
 * long; a never-answering resolver would hold them for good.
 */
describe("resolution is bounded by the attempt's timeout and DNS_TIMEOUT_MS", () => {
  const never = () => new Promise<string[]>(() => {});
  const within = <T>(p: Promise<T>, ms = 3000) => Promise.race([p, Bun.sleep(ms).then(() => "still waiting" as const)]);

  test("a webhook delivery to such a host ends at its timeout", async () => {
    const t0 = Date.now();
    const outcome = await within(
      sendDelivery(
        {
          id: "dl_1",
          attempts: 0,
          eventId: "msg_1",
          payload: "{}",
          endpointId: "wh_1",
          url: "https://hook.slow-dns.example/x",
          secrets: [`whsec_${Buffer.alloc(24, 7).toString("base64")}`],
        },
        { timeoutMs: 300, schedule: [5000], disableAfterMs: 86_400_000, allowPrivate: false, resolve: never },
        systemClock,
      ),
    );
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: "no answer within 300 ms" });
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  test("creating a webhook at such a host is refused after the DNS deadline (5 s by default)", async () => {
    expect(DNS_TIMEOUT_MS).toBe(5000);
    const refused = await within(
      checkDestination("https://hook.slow-dns.example/x", {
        allowPrivate: false,
        resolve: never,
        dnsTimeoutMs: 200,
      }).catch((e: Error) => e),
    );
    expect(refused).toMatchObject({
      message: "invalid params: url refused: hook.slow-dns.example does not resolve to a public internet address",
    });
  });
});
