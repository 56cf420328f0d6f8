/**
 * One test server for a whole test file: started before its first test, disposed (data dir and PostgreSQL database
 * removed) after its last, with a client for it — the setup most integration files share.
 *
 *   const it = serverForFile({ env: { JOBS: "off", SIGNUP_CREDITS: "3" } });
 *   test("…", async () => { const { cookie } = await it.api.signUp(uniqueEmail("x")); … it.server.url … });
 *
 * `options` may be a function, called in beforeAll: for settings known only then (a fake's URL).
 * `after` runs after the server stops (a fake's stop). Not in server.ts: that module also serves the benchmarks,
 * which run outside `bun test`.
 */
import { afterAll, beforeAll } from "bun:test";
import { Client } from "./client";
import { type StartOptions, startServer, type TestServer } from "./server";

export interface FileServer {
  server: TestServer;
  api: Client;
}

export function serverForFile(
  options: StartOptions | (() => StartOptions | Promise<StartOptions>) = {},
  after?: () => unknown,
): FileServer {
  const it = {} as FileServer;
  beforeAll(async () => {
    it.server = await startServer(typeof options === "function" ? await options() : options);
    it.api = new Client(it.server.url);
  });
  afterAll(async () => {
    await it.server?.dispose();
    await after?.();
  });
  return it;
}
