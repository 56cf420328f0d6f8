/**
 * The COSE_Sign1 that C2PA's claim signature is (C2PA 2.x §14, RFC 9052), built here because the WebAssembly SDK's
 * signer callback hands over the claim bytes and expects the whole structure back ("direct COSE handling"): ES256
 * over the Sig_structure with node:crypto, the certificate chain in the protected `x5chain` header, detached payload,
 * padded to the SDK's reserved size with the unprotected `pad` header. A minimal deterministic CBOR encoder covers
 * the types this needs (ints, byte and text strings, arrays, maps, null).
 */
import { createPrivateKey, type KeyObject, sign as signBytes, X509Certificate } from "node:crypto";

type Cbor = number | string | Uint8Array | null | Cbor[] | Map<Cbor, Cbor>;

function head(major: number, n: number): number[] {
  const m = major << 5;
  if (n < 24) return [m | n];
  if (n < 0x100) return [m | 24, n];
  if (n < 0x10000) return [m | 25, n >> 8, n & 0xff];
  return [m | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
}

export function cbor(value: Cbor): Uint8Array {
  const out: number[] = [];
  const chunks: Uint8Array[] = [];
  const flush = () => {
    if (out.length) chunks.push(Uint8Array.from(out.splice(0)));
  };
  const enc = (v: Cbor) => {
    if (v === null) out.push(0xf6);
    else if (typeof v === "number") out.push(...(v >= 0 ? head(0, v) : head(1, -1 - v)));
    else if (typeof v === "string") {
      const b = new TextEncoder().encode(v);
      out.push(...head(3, b.length));
      flush();
      chunks.push(b);
    } else if (v instanceof Uint8Array) {
      out.push(...head(2, v.length));
      flush();
      chunks.push(v);
    } else if (Array.isArray(v)) {
      out.push(...head(4, v.length));
      for (const x of v) enc(x);
    } else {
      out.push(...head(5, v.size));
      for (const [k, x] of v) {
        enc(k);
        enc(x);
      }
    }
  };
  enc(value);
  flush();
  return Buffer.concat(chunks);
}

export interface SigningCredentials {
  key: KeyObject;
  /** DER certificates, signer first. */
  chain: Uint8Array[];
}

export function credentialsFromPem(keyPem: string, chainPem: string): SigningCredentials {
  const key = createPrivateKey(keyPem);
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1")
    throw new Error("the C2PA signing key must be an EC P-256 key (ES256)");
  const pems = chainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (pems.length === 0) throw new Error("the C2PA certificate chain holds no PEM certificate");
  const chain = pems.map((p) => new Uint8Array(new X509Certificate(p).raw));
  if (!new X509Certificate(pems[0] as string).checkPrivateKey(key))
    throw new Error("the C2PA signing key does not match the chain's first certificate");
  return { key, chain };
}

/** Tagged COSE_Sign1 (tag 18) over `payload`, detached, padded to exactly `size` bytes when it fits. */
export function coseSign1(creds: SigningCredentials, payload: Uint8Array, size: number): Uint8Array {
  const x5 = creds.chain.length === 1 ? (creds.chain[0] as Uint8Array) : creds.chain;
  const protectedHeader = cbor(
    new Map<Cbor, Cbor>([
      [1, -7],
      [33, x5],
    ]),
  );
  const toBeSigned = cbor(["Signature1", protectedHeader, new Uint8Array(0), payload]);
  const signature = new Uint8Array(signBytes("sha256", toBeSigned, { key: creds.key, dsaEncoding: "ieee-p1363" }));
  const build = (pad: number) =>
    Buffer.concat([
      Uint8Array.of(0xd2),
      cbor([protectedHeader, new Map<Cbor, Cbor>([["pad", new Uint8Array(pad)]]), null, signature]),
    ]);
  let pad = Math.max(0, size - build(0).length);
  // The pad's own length header grows as the pad does: shrink until the whole is at most `size`.
  while (pad > 0 && build(pad).length > size) pad--;
  return build(pad);
}
