/**
 * review3: the webhook URL check told the caller what the server's own
 * resolver knows. `POST /api/webhooks/create {url: "http://db.internal/x"}`
 * answered `url refused: db.internal resolves to a forbidden address:
 * 10.0.3.7 is a private address` — and a name only the internal resolver knows
 * (a Kubernetes service, a cloud's metadata host, `localhost`) answered with its
 * internal address, while an unknown name answered `could not be resolved:
 * getaddrinfo ENOTFOUND`. Any signed-in user could map the operator's internal
 * network by name, one request each; a CNAME on the attacker's own domain does
 * the same through the delivery log. Now the refusal names the host and the
 * rule, never an address, a range or the resolver's answer, and is the same for
 * a name that does not resolve.
 */
import { expect, test } from "bun:test";
import { uniqueEmail } from "../support/client";
import { serverForFile } from "../support/file-server";

const s = serverForFile(); // WEBHOOK_ALLOW_PRIVATE unset, as in production

const IPV4 = /\b\d{1,3}(\.\d{1,3}){3}\b/;
const LEAKS = [
  IPV4,
  /::/,
  /loopback|private|linkLocal|link-local|reserved|uniqueLocal|unspecified|ENOTFOUND|EAI_|getaddrinfo/i,
];

test("a refused webhook URL names no address, range or resolver error; an internal name and an unknown one answer alike", async () => {
  const { cookie } = await s.api.signUp(uniqueEmail("wh-dns"));
  const init = { headers: { origin: s.server.url } };
  const refusal = async (url: string) => (await s.api.post("/api/webhooks/create", { url }, { cookie }, init)).body;
  const answers: Record<string, string> = {};
  for (const url of [
    "http://localhost/hook",
    "http://127.0.0.1:8080/hook",
    "http://10.0.3.7/x",
    "http://[::1]/x",
    "http://169.254.169.254/latest",
    "http://no-such-host.invalid/x",
  ]) {
    const body = await refusal(url);
    expect({ url, code: body.code }).toEqual({ url, code: 1 });
    expect(body.message).toStartWith("invalid params: url refused");
    answers[url] = body.message;
    // The host the caller wrote may appear; nothing the server looked up may.
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    const told = body.message.split(host).join("HOST");
    for (const leak of LEAKS)
      expect({ url, message: body.message, leaks: leak.test(told) }).toEqual({
        url,
        message: body.message,
        leaks: false,
      });
  }
  console.log(answers);
  // A name the internal resolver knows and one nobody knows: the same sentence, only the host differs.
  expect(answers["http://localhost/hook"]!.replace("localhost", "HOST")).toBe(
    answers["http://no-such-host.invalid/x"]!.replace("no-such-host.invalid", "HOST"),
  );
  expect((await s.api.post("/api/webhooks/list", undefined, { cookie }, init)).body.data.webhooks).toEqual([]);
});
