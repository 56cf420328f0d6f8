/**
 * A software WebAuthn authenticator (one P-256 credential, attestation "none") that registers and signs in through
 * better-auth's passkey endpoints over plain HTTP, as a browser's navigator.credentials would: the challenge cookie
 * is the CookieBrowser's. Enough of CBOR to write the attestation object and the COSE public key.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import type { CookieBrowser } from "./cookie-browser";

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const sha256 = (bytes: Uint8Array | string) => new Uint8Array(createHash("sha256").update(bytes).digest());

type Cbor = number | string | Uint8Array | Map<number | string, Cbor>;

function cborHead(major: number, length: number): number[] {
  if (length < 24) return [(major << 5) | length];
  if (length < 256) return [(major << 5) | 24, length];
  return [(major << 5) | 25, length >> 8, length & 0xff];
}

function cbor(value: Cbor): number[] {
  if (typeof value === "number") return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === "string") {
    const bytes = new TextEncoder().encode(value);
    return [...cborHead(3, bytes.length), ...bytes];
  }
  if (value instanceof Uint8Array) return [...cborHead(2, value.length), ...value];
  const out = cborHead(5, value.size);
  for (const [k, v] of value) out.push(...cbor(k), ...cbor(v));
  return out;
}

const u32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];

export class PasskeyAuthenticator {
  readonly credentialId = new Uint8Array(randomBytes(16));
  private readonly privateKey: KeyObject;
  private readonly coseKey: number[];
  private counter = 0;

  constructor(private readonly site: string) {
    const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.privateKey = pair.privateKey;
    const jwk = pair.publicKey.export({ format: "jwk" });
    this.coseKey = cbor(
      new Map<number, Cbor>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, new Uint8Array(Buffer.from(jwk.x!, "base64url"))],
        [-3, new Uint8Array(Buffer.from(jwk.y!, "base64url"))],
      ]),
    );
  }

  private clientData(type: "webauthn.create" | "webauthn.get", challenge: string) {
    return new TextEncoder().encode(JSON.stringify({ type, challenge, origin: this.site, crossOrigin: false }));
  }

  private async json(browser: CookieBrowser, path: string, body?: unknown) {
    const res = await browser.go(
      `/api/auth${path}`,
      body === undefined
        ? {}
        : {
            method: "POST",
            headers: { "content-type": "application/json", origin: this.site },
            body: JSON.stringify(body),
          },
    );
    return { status: res.status, body: JSON.parse(res.text || "null") as Record<string, any> | null };
  }

  /** Registers this credential for the browser's signed-in account: the reply's HTTP status. */
  async register(browser: CookieBrowser, name = "authenticator"): Promise<number> {
    const options = await this.json(browser, "/passkey/generate-register-options");
    if (options.status !== 200) return options.status;
    const rpId: string = options.body!.rp.id;
    const authData = new Uint8Array([
      ...sha256(rpId),
      0x45, // user present, user verified, attested credential data
      ...u32(this.counter),
      ...new Uint8Array(16), // AAGUID
      this.credentialId.length >> 8,
      this.credentialId.length & 0xff,
      ...this.credentialId,
      ...this.coseKey,
    ]);
    const attestationObject = new Uint8Array(
      cbor(
        new Map<string, Cbor>([
          ["fmt", "none"],
          ["attStmt", new Map()],
          ["authData", authData],
        ]),
      ),
    );
    const id = b64url(this.credentialId);
    const reply = await this.json(browser, "/passkey/verify-registration", {
      name,
      response: {
        id,
        rawId: id,
        type: "public-key",
        response: {
          clientDataJSON: b64url(this.clientData("webauthn.create", options.body!.challenge)),
          attestationObject: b64url(attestationObject),
          transports: ["internal"],
        },
        clientExtensionResults: {},
      },
    });
    return reply.status;
  }

  /** Signs in with this credential from the browser (no session needed): the reply's HTTP status. */
  async signIn(browser: CookieBrowser): Promise<number> {
    const options = await this.json(browser, "/passkey/generate-authenticate-options");
    if (options.status !== 200) return options.status;
    const rpId = options.body!.rpId ?? new URL(this.site).hostname;
    this.counter++;
    const authenticatorData = new Uint8Array([...sha256(rpId), 0x05, ...u32(this.counter)]);
    const clientDataJSON = this.clientData("webauthn.get", options.body!.challenge);
    const signature = sign("sha256", Buffer.concat([authenticatorData, sha256(clientDataJSON)]), {
      key: this.privateKey,
      dsaEncoding: "der",
    });
    const id = b64url(this.credentialId);
    const reply = await this.json(browser, "/passkey/verify-authentication", {
      response: {
        id,
        rawId: id,
        type: "public-key",
        response: {
          clientDataJSON: b64url(clientDataJSON),
          authenticatorData: b64url(authenticatorData),
          signature: b64url(new Uint8Array(signature)),
        },
        clientExtensionResults: {},
      },
    });
    return reply.status;
  }
}
