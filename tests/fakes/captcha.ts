/**
 * A captcha siteverify endpoint (Cloudflare Turnstile's JSON form and hCaptcha's urlencoded form, one shape of answer:
 * `{success, "error-codes"}`). The token decides: `pass…` succeeds when the secret is the expected one, `hang` never
 * answers (until the fake stops), `broken` is a 500, anything else is refused as a wrong answer.
 *
 *   const verify = await startCaptchaFake("secret");   // CAPTCHA_VERIFY_URL: verify.url
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface CaptchaVerifyCall {
  contentType: string;
  fields: Record<string, string>;
}

export interface CaptchaFake {
  url: string;
  calls: CaptchaVerifyCall[];
  stop(): Promise<void>;
}

export async function startCaptchaFake(secret: string): Promise<CaptchaFake> {
  const calls: CaptchaVerifyCall[] = [];
  const hanging = new Set<ServerResponse>();
  // node:http, not Bun.serve: the Playwright runner (Node) starts it too.
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const contentType = req.headers["content-type"] ?? "";
    const fields: Record<string, string> = contentType.includes("json")
      ? (JSON.parse(text) as Record<string, string>)
      : Object.fromEntries(new URLSearchParams(text));
    calls.push({ contentType, fields });
    const token = fields.response ?? "";
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (token === "hang") {
      hanging.add(res);
      return;
    }
    if (token === "broken") return json(500, { error: "upstream error" });
    if (token.startsWith("pass") && fields.secret === secret)
      return json(200, { success: true, hostname: "127.0.0.1", "error-codes": [] });
    json(200, {
      success: false,
      "error-codes": [fields.secret === secret ? "invalid-input-response" : "invalid-input-secret"],
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/siteverify`,
    calls,
    async stop() {
      for (const res of hanging) res.destroy();
      hanging.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Turnstile's browser script stood in for (a browser here has no network): `turnstile.render` draws a box like its
 * widget and adds the token field to the form, `pass-<site key>`, which the fake above accepts.
 */
export const TURNSTILE_STAND_IN = `window.turnstile = {
  render(container, options) {
    const box = document.createElement("div");
    box.setAttribute("role", "status");
    box.style.cssText = "width:300px;max-width:100%;height:65px;box-sizing:border-box;border:1px solid #8885;border-radius:4px;display:flex;align-items:center;padding:0 16px;font:14px system-ui";
    box.textContent = "\\u2713 Success!";
    const field = document.createElement("input");
    field.type = "hidden";
    field.name = "cf-turnstile-response";
    field.value = "pass-" + options.sitekey;
    container.append(box, field);
    return "widget-1";
  },
  remove() {},
};`;
