/**
 * A captcha siteverify endpoint (Cloudflare Turnstile's JSON form and hCaptcha's urlencoded form, one shape of answer:
 * `{success, "error-codes"}`). The token decides: `pass…` succeeds when the secret is the expected one, `hang` never
 * answers (until the fake stops), `broken` is a 500, anything else is refused as a wrong answer.
 *
 *   const verify = startCaptchaFake("secret");   // CAPTCHA_VERIFY_URL: verify.url
 */
export interface CaptchaVerifyCall {
  contentType: string;
  fields: Record<string, string>;
}

export interface CaptchaFake {
  url: string;
  calls: CaptchaVerifyCall[];
  stop(): Promise<void>;
}

export function startCaptchaFake(secret: string): CaptchaFake {
  const calls: CaptchaVerifyCall[] = [];
  const hanging = new Set<() => void>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const contentType = req.headers.get("content-type") ?? "";
      const text = await req.text();
      const fields: Record<string, string> = contentType.includes("json")
        ? (JSON.parse(text) as Record<string, string>)
        : Object.fromEntries(new URLSearchParams(text));
      calls.push({ contentType, fields });
      const token = fields.response ?? "";
      if (token === "hang")
        return new Promise<Response>((resolve) => hanging.add(() => resolve(new Response("stopped", { status: 503 }))));
      if (token === "broken") return new Response("upstream error", { status: 500 });
      if (token.startsWith("pass") && fields.secret === secret)
        return Response.json({ success: true, hostname: "127.0.0.1", "error-codes": [] });
      return Response.json({
        success: false,
        "error-codes": [fields.secret === secret ? "invalid-input-response" : "invalid-input-secret"],
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/siteverify`,
    calls,
    async stop() {
      for (const release of hanging) release();
      hanging.clear();
      await server.stop(true);
    },
  };
}
