/**
 * A browser made of fetch: it keeps the cookies one site sets, follows redirects itself (across sites, as a browser
 * would) and remembers each hop, so a test can walk a provider round trip over plain HTTP and look at every step.
 *
 *   const b = new CookieBrowser(server.url);
 *   const end = await b.submit("/sign-in/provider", { provider: "oidc" });   // form post, redirects followed
 */
export class CookieBrowser {
  readonly cookies = new Map<string, string>();
  /** Every URL visited by the last navigation, first to last. */
  hops: string[] = [];

  constructor(readonly site: string) {}

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  private keep(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** Fetches `url` (relative to the site) and follows redirects; the final answer, its body read as text. */
  async go(url: string, init: RequestInit = {}): Promise<{ url: string; status: number; text: string }> {
    this.hops = [];
    let target = new URL(url, this.site).href;
    let request: RequestInit = init;
    for (let hop = 0; hop < 15; hop++) {
      this.hops.push(target);
      const ours = new URL(target).origin === new URL(this.site).origin;
      const headers = new Headers(request.headers);
      if (ours && this.cookies.size) headers.set("cookie", this.cookieHeader());
      const res = await fetch(target, { ...request, headers, redirect: "manual" });
      if (ours) this.keep(res);
      const location = res.headers.get("location");
      if (res.status >= 300 && res.status < 400 && location) {
        await res.text();
        target = new URL(location, target).href;
        request = {};
        continue;
      }
      return { url: target, status: res.status, text: await res.text() };
    }
    throw new Error(`too many redirects: ${this.hops.join(" → ")}`);
  }

  /** A form post from one of the site's pages (urlencoded, with the site's Origin), redirects followed. */
  submit(path: string, fields: Record<string, string>) {
    return this.go(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: this.site },
      body: new URLSearchParams(fields).toString(),
    });
  }
}
