/**
 * Signing and reading Content Credentials with the WebAssembly C2PA SDK (app/domain/provenance): a signed PNG carries
 * a `caBX` chunk the SDK's own reader validates, with the AI digital source type and the model as software agent; a
 * plain PNG has no manifest; one changed byte of the pixel data, or of the signature, makes it invalid; an edit
 * records its input as an ingredient; a second signer's key does not pass for the first's certificate.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readCredentials, signAsset, TRAINED_ALGORITHMIC_MEDIA } from "~/domain/provenance/c2pa.server";
import { credentialsFromPem, type SigningCredentials } from "~/domain/provenance/cose.server";
import { devSigner, loadSigningCredentials } from "~/domain/provenance/credentials.server";
import { png } from "../../support/images";

const dir = mkdtempSync(join(tmpdir(), "c2pa-"));
let creds: SigningCredentials;
const input = (inputs?: { bytes: Uint8Array; contentType: string; title: string }[]) => ({
  format: "image/png",
  title: "result.png",
  generator: { name: "Atelier", version: "9.9.9" },
  agent: "openai/gpt-image-1",
  when: new Date("2026-12-02T10:00:00Z"),
  inputs,
});
const chunkTypes = (b: Uint8Array) => {
  const types: string[] = [];
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let o = 8; o < b.length; ) {
    const len = v.getUint32(o);
    types.push(new TextDecoder().decode(b.subarray(o + 4, o + 8)));
    o += 12 + len;
  }
  return types;
};

beforeAll(() => {
  creds = loadSigningCredentials({ dataDir: dir });
});

describe("C2PA signing", () => {
  test("a signed PNG carries caBX and validates with the SDK's reader", async () => {
    const plain = png(16, 16, { fill: (i) => i % 251 });
    const signed = await signAsset(creds, plain, input());
    expect(chunkTypes(signed)).toContain("caBX");
    const c = await readCredentials(signed, "image/png");
    expect(c).toMatchObject({ hasManifest: true, valid: true, trusted: false, action: "c2pa.created" });
    expect(c.digitalSourceType).toBe(TRAINED_ALGORITHMIC_MEDIA);
    expect(c.model).toBe("openai/gpt-image-1");
    expect(c.generator).toBe("Atelier 9.9.9");
    expect(c.failures).toEqual([]);
  });

  test("a plain PNG has no manifest", async () => {
    const c = await readCredentials(png(4, 4), "image/png");
    expect(c).toMatchObject({ hasManifest: false, valid: false });
  });

  test("one changed byte of the pixel data, or of the signature, is invalid", async () => {
    const signed = await signAsset(creds, png(16, 16, { fill: (i) => i % 7 }), input());
    const idat = Buffer.from(signed).indexOf("IDAT");
    const pixels = new Uint8Array(signed);
    pixels[idat + 8] = (pixels[idat + 8] as number) ^ 1;
    const a = await readCredentials(pixels, "image/png");
    expect(a).toMatchObject({ hasManifest: true, valid: false });
    expect(a.failures.map((f) => f.code)).toContain("assertion.dataHash.mismatch");

    // The claim signature (ES256, r|s) sits just before the padding at the end of the caBX chunk's COSE structure.
    const sig = new Uint8Array(signed);
    const cabx = Buffer.from(sig).indexOf("caBX");
    const len = new DataView(sig.buffer).getUint32(cabx - 4);
    const cose = Buffer.from(sig.subarray(cabx + 4, cabx + 4 + len));
    const at = cose.lastIndexOf(Buffer.from([0x58, 0x40])); // bstr(64): the signature
    expect(at).toBeGreaterThan(0);
    sig[cabx + 4 + at + 10] = (sig[cabx + 4 + at + 10] as number) ^ 0xff;
    const b = await readCredentials(sig, "image/png");
    expect(b.valid).toBe(false);
  });

  test("an edit is c2pa.edited with the input picture as an ingredient", async () => {
    const source = png(8, 8, { fill: () => 9 });
    const signed = await signAsset(
      creds,
      png(8, 8),
      input([{ bytes: source, contentType: "image/png", title: "in.png" }]),
    );
    const c = await readCredentials(signed, "image/png");
    expect(c).toMatchObject({ valid: true, action: "c2pa.edited", ingredients: 1 });
  });

  test("the dev signer is made once and kept; a key that is not the certificate's is refused", () => {
    const first = devSigner(join(dir, "c2pa"));
    const again = devSigner(join(dir, "c2pa"));
    expect(readFileSync(again.certPath, "utf8")).toBe(readFileSync(first.certPath, "utf8"));
    const other = devSigner(join(dir, "other"));
    expect(() => credentialsFromPem(readFileSync(other.keyPath, "utf8"), readFileSync(first.certPath, "utf8"))).toThrow(
      /does not match/,
    );
    expect(() => loadSigningCredentials({ key: other.keyPath, dataDir: dir })).toThrow(/together/);
    const configured = loadSigningCredentials({ key: other.keyPath, chain: other.certPath, dataDir: dir });
    expect(configured.chain).toHaveLength(1);
  });
});
