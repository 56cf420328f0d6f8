/**
 * review3: the anonymous demo limit (DEMO_RATE_LIMIT per client address, open
 * in development and with DEMO_PUBLIC=true) counted each IPv6 address on its
 * own. An IPv6 host owns a whole /64 — 2^64 source addresses it may use at
 * will — so one anonymous client rotating its address got a fresh quota on
 * every call: unlimited simulated text and images (each image a file on disk).
 * better-auth's own per-IP limiter already counts IPv6 per /64; now the demo
 * limit does too (IPv4 and IPv4-mapped addresses stay per address).
 */
import { expect, test } from "bun:test";
import { serverForFile } from "../support/file-server";

const LIMIT = 3;
// TRUST_PROXY: the client address comes from the proxy's X-Forwarded-For (as behind nginx), so the test can choose it.
const s = serverForFile({ env: { DEMO_PUBLIC: "true", DEMO_RATE_LIMIT: String(LIMIT), TRUST_PROXY: "true" } });

const demo = (clientIp: string) =>
  fetch(`${s.server.url}/api/demo/gen-text`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": clientIp },
    body: JSON.stringify({ provider: "openrouter", model: "openai/gpt-4o-mini", prompt: "hello" }),
  });

test(`10 anonymous calls from 10 addresses of one IPv6 /64 get ${LIMIT} answers, then 429`, async () => {
  const statuses: number[] = [];
  for (let i = 1; i <= 10; i++) {
    const r = await demo(`2001:db8:7:9:${i.toString(16)}:beef:${(i * 7).toString(16)}:1`);
    await r.text();
    statuses.push(r.status);
  }
  console.log(`statuses from one /64: ${statuses.join(",")}`);
  expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
  expect(statuses.slice(LIMIT).every((s) => s === 429)).toBe(true);
});

test("another /64, and IPv4 addresses, each keep their own count", async () => {
  const other = await demo("2001:db8:7:a::1");
  expect(other.status).toBe(200);
  await other.text();
  for (const ip of ["198.51.100.7", "198.51.100.8"]) {
    const r = await demo(ip);
    expect({ ip, status: r.status }).toEqual({ ip, status: 200 });
    await r.text();
  }
});
