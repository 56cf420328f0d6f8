/**
 * A server whose PUBLIC_URL is a loopback address answers its forms under every loopback name
 * (docs/decisions/137-loopback-aliases.md): printed as `localhost`, opened as `127.0.0.1` (and the reverse), sign-up
 * works; a foreign origin is still refused, and a public PUBLIC_URL gets no aliases.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { freePort, startServer, type TestServer } from "../../support/server";

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.dispose();
});

async function serverAt(publicHost: string) {
  const port = await freePort();
  const s = await startServer({ port, env: { PUBLIC_URL: `http://${publicHost}:${port}` } });
  servers.push(s);
  return { s, port };
}

/** Posts the sign-up form as a browser at `host` would (the socket is always 127.0.0.1). */
function signUp(port: number, host: string, origin = `http://${host}:${port}`, path = "/sign-up") {
  return fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { host: `${host}:${port}`, origin, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ name: "Loop", email: uniqueEmail("loop"), password: "correct horse battery 9" }),
  });
}

describe("loopback aliases of a loopback PUBLIC_URL", () => {
  test("PUBLIC_URL localhost, opened at 127.0.0.1: sign-up signs in", async () => {
    const { port } = await serverAt("localhost");
    const res = await signUp(port, "127.0.0.1");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/studio");
    expect(res.headers.get("set-cookie")).toContain("session_token");
  });

  test("PUBLIC_URL 127.0.0.1, opened at localhost (and [::1]): sign-up signs in", async () => {
    const { port } = await serverAt("127.0.0.1");
    for (const host of ["localhost", "[::1]"]) {
      const res = await signUp(port, host);
      expect(res.status).toBe(302);
      expect(res.headers.get("set-cookie")).toContain("session_token");
    }
  });

  test("a foreign origin is still refused, and so is a loopback name on another port", async () => {
    const { port } = await serverAt("localhost");
    const foreign = await signUp(port, "127.0.0.1", "http://evil.example");
    expect(foreign.headers.get("set-cookie") ?? "").not.toContain("session_token");
    expect(foreign.status).not.toBe(302);
    const otherPort = await signUp(port, "127.0.0.1", `http://127.0.0.1:${port + 1}`);
    expect(otherPort.headers.get("set-cookie") ?? "").not.toContain("session_token");
    expect(otherPort.status).not.toBe(302);
  });
});
