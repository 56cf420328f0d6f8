import { expect, test } from "bun:test";
import { acceptedCodings } from "~/server/static-files.server";

test("Accept-Encoding: names, q-values, the wildcard and refusals", () => {
  const read = (h: string | null) => [...acceptedCodings(h)].sort();
  expect(read(null)).toEqual([]);
  expect(read("")).toEqual([]);
  expect(read("gzip, deflate, br, zstd")).toEqual(["br", "gzip"]);
  expect(read("gzip")).toEqual(["gzip"]);
  expect(read("x-gzip")).toEqual(["gzip"]);
  expect(read("BR;q=0.5")).toEqual(["br"]);
  expect(read("br;q=0, gzip;q=1")).toEqual(["gzip"]);
  expect(read("*")).toEqual(["br", "gzip"]);
  expect(read("*;q=0")).toEqual([]);
  expect(read("*, br;q=0")).toEqual(["gzip"]);
  expect(read("identity")).toEqual([]);
  expect(read("gzip;q=abc")).toEqual([]);
});
