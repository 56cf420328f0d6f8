/**
 * A webhook URL on an IPv6 address outside global unicast space (2000::/3) is refused: `http://[::a9fe:a9fe]/` is
 * `::169.254.169.254`, the IPv4-compatible spelling of the cloud metadata address, and `http://[::7f00:1]/` of
 * 127.0.0.1 (docs/decisions/097-outbound-ipv6-global-unicast-only.md). Both engines: nothing is stored for a refused URL.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { Client, uniqueEmail } from "../support/client";
import { startServer, type TestServer } from "../support/server";

setDefaultTimeout(60_000);

let server: TestServer;
let api: Client;
beforeAll(async () => {
  server = await startServer(); // WEBHOOK_ALLOW_PRIVATE stays at its default (false)
  api = new Client(server.url);
});
afterAll(async () => {
  await server?.dispose();
});

test("webhook URLs on IPv4-compatible IPv6 addresses are refused and nothing is stored", async () => {
  const { cookie } = await api.signUp(uniqueEmail("r5-ssrf"));
  for (const [url, host] of [
    ["http://[::a9fe:a9fe]/latest/meta-data/", "::a9fe:a9fe"],
    ["http://[::169.254.169.254]/", "::a9fe:a9fe"],
    ["http://[::7f00:1]:8080/hook", "::7f00:1"],
  ] as const) {
    const r = await api.post("/api/webhooks/create", { url }, { cookie });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      code: 1,
      message: `invalid params: url refused: ${host} is not a public internet address`,
      data: null,
    });
  }
  const list = await api.post("/api/webhooks/list", undefined, { cookie });
  expect(list.body.data.webhooks).toEqual([]);
});
