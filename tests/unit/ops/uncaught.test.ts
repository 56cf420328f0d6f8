/** Which errors nobody caught the server serves through (app/server/http.server.ts `onUncaught`). */
import { expect, test } from "bun:test";
import { recoverableConnectionError } from "~/server/http.server";

const sys = (code: string, syscall = "read") => Object.assign(new Error(code), { code, syscall });

test("a socket's connection error (a database restarted under the pool) is recoverable", () => {
  for (const code of ["ECONNRESET", "EPIPE", "ECONNREFUSED", "ETIMEDOUT"])
    expect(recoverableConnectionError(sys(code))).toBe(true);
});

test("anything else is not: the process exits and its supervisor restarts it", () => {
  expect(recoverableConnectionError(new Error("ECONNRESET"))).toBe(false); // no syscall: not a socket's error
  expect(recoverableConnectionError(sys("ENOSPC", "write"))).toBe(false);
  expect(recoverableConnectionError(new TypeError("x is undefined"))).toBe(false);
  expect(recoverableConnectionError(null)).toBe(false);
});
