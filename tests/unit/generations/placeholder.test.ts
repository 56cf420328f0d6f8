/** A result picture's placeholder (app/domain/generations/placeholder.server.ts): a ThumbHash of its bytes. */
import { expect, test } from "bun:test";
import { thumbHashToApproximateAspectRatio, thumbHashToAverageRGBA } from "thumbhash";
import { placeholderOf } from "~/domain/generations/placeholder.server";
import { renderImagePng } from "~/providers/simulator/render.server";

const hashOf = (b64: string) => Uint8Array.from(Buffer.from(b64, "base64"));

test("a PNG result gives a short ThumbHash with the picture's shape and colour", () => {
  const square = placeholderOf(renderImagePng("a lighthouse"), "image/png");
  expect(square).toMatch(/^[A-Za-z0-9+/]{20,44}={0,2}$/);
  expect(thumbHashToApproximateAspectRatio(hashOf(square!))).toBeCloseTo(1, 1);
  const wide = placeholderOf(
    renderImagePng("a wide harbour", { ratio: [16, 9], mark: "SIMULATED", caption: "16:9" }),
    "image/png",
  );
  expect(thumbHashToApproximateAspectRatio(hashOf(wide!))).toBeGreaterThan(1.5);
  // Opaque: the picture covers its placeholder once loaded.
  expect(thumbHashToAverageRGBA(hashOf(square!)).a).toBeCloseTo(1, 2);
});

test("anything that is not a readable picture gives none", () => {
  expect(placeholderOf(new TextEncoder().encode("<html></html>"), "image/png")).toBeNull();
  expect(placeholderOf(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]), "image/png")).toBeNull();
  expect(placeholderOf(renderImagePng("a fox"), "video/mp4")).toBeNull();
});
