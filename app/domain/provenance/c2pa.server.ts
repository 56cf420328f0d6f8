/**
 * C2PA Content Credentials for results (docs/provenance.md, ADR 146): signing with the WebAssembly build of the
 * official SDK (@contentauth/c2pa-wasm, the Rust c2pa crate), which runs under Bun with no network and no native
 * library. The SDK builds the manifest, embeds it in the format's own place (PNG `caBX`, JPEG APP11, MP4 `uuid`)
 * and hands us the claim to sign; we answer the COSE_Sign1 (cose.server.ts) with the operator's ES256 key.
 * Reading (verify) uses the same SDK's Reader.
 */
import init, { WasmBuilder, WasmReader } from "@contentauth/c2pa-wasm";
import { coseSign1, type SigningCredentials } from "./cose.server";
import { installFileReaderSync, MemoryBlob } from "./memory-blob.server";

export const TRAINED_ALGORITHMIC_MEDIA = "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia";
/** Room the SDK reserves for the signature: an ES256 signature, a few certificates and the padding. */
const RESERVE_BASE = 2_048;

let ready: Promise<unknown> | undefined;

/** Loads the SDK's WebAssembly once (from the package, or the bytes a compiled binary embeds). */
export function loadC2pa(wasm?: () => Promise<Uint8Array>): Promise<unknown> {
  ready ??= (async () => {
    installFileReaderSync();
    const bytes = wasm
      ? await wasm()
      : new Uint8Array(
          await Bun.file(Bun.resolveSync("@contentauth/c2pa-wasm/c2pa.wasm", import.meta.dir)).arrayBuffer(),
        );
    return init({ module_or_path: bytes });
  })();
  return ready;
}

export interface ManifestInput {
  format: string;
  title: string;
  generator: { name: string; version: string };
  /** `provider/model`, the software agent of the action. */
  agent: string;
  when: Date;
  /** The task's input pictures, as ingredients the result was made from (an edit). */
  inputs?: { bytes: Uint8Array; contentType: string; title: string }[];
}

/** Signs `bytes` (a `format` file) with a manifest saying it was made by `agent`; answers the signed file. */
export async function signAsset(
  creds: SigningCredentials,
  bytes: Uint8Array,
  input: ManifestInput,
): Promise<Uint8Array> {
  await loadC2pa();
  const edited = (input.inputs?.length ?? 0) > 0;
  const builder = WasmBuilder.fromJson(
    JSON.stringify({
      claim_generator_info: [input.generator],
      title: input.title,
      format: input.format,
      assertions: [
        {
          label: "c2pa.actions.v2",
          data: {
            actions: [
              // An edit opens its (first) input picture, the parent ingredient, then changes it.
              ...(edited ? [{ action: "c2pa.opened", parameters: { ingredientIds: ["input-0"] } }] : []),
              {
                action: edited ? "c2pa.edited" : "c2pa.created",
                digitalSourceType: TRAINED_ALGORITHMIC_MEDIA,
                softwareAgent: { name: input.agent },
                when: input.when.toISOString(),
              },
            ],
          },
        },
      ],
    }),
  );
  try {
    for (const [i, picture] of (input.inputs ?? []).entries()) {
      await builder.addIngredientFromBlob(
        JSON.stringify({
          title: picture.title || `input-${i}`,
          relationship: i === 0 ? "parentOf" : "componentOf",
          label: `input-${i}`,
        }),
        picture.contentType,
        new MemoryBlob(picture.bytes, picture.contentType),
      );
    }
    const reserve = RESERVE_BASE + creds.chain.reduce((n, c) => n + c.length + 8, 0);
    return await builder.sign(
      {
        alg: "es256",
        reserveSize: reserve,
        sign: async (claim: Uint8Array) => coseSign1(creds, claim, reserve),
      } as never,
      undefined,
      input.format,
      new MemoryBlob(bytes, input.format),
    );
  } finally {
    builder.free();
  }
}

export interface Credentials {
  hasManifest: boolean;
  /** The manifest's signature and every hash it binds match the bytes (whether the signer is trusted aside). */
  valid: boolean;
  /** The signer's certificate chains to a trust anchor the reader knows (a self-signed dev signer does not). */
  trusted: boolean;
  digitalSourceType?: string;
  model?: string;
  action?: string;
  generator?: string;
  signer?: { commonName?: string; issuer?: string };
  signedAt?: string;
  ingredients: number;
  failures: { code: string; explanation?: string }[];
}

/** Trust-list outcomes: not a sign that the file was changed. */
const TRUST_CODES = new Set(["signingCredential.untrusted", "signingCredential.ocsp.skipped"]);

function noManifest(): Credentials {
  return { hasManifest: false, valid: false, trusted: false, ingredients: 0, failures: [] };
}

interface ManifestJson {
  claim_generator_info?: { name?: string; version?: string }[];
  assertions?: { label: string; data?: { actions?: Record<string, unknown>[] } }[];
  signature_info?: { common_name?: string; issuer?: string; time?: string };
  ingredients?: unknown[];
}

/** Reads a file's C2PA manifest store and validates it with the SDK. */
export async function readCredentials(bytes: Uint8Array, format: string): Promise<Credentials> {
  await loadC2pa();
  let reader: WasmReader;
  try {
    reader = await WasmReader.fromBytes(format, bytes);
  } catch (error) {
    if (/JumbfNotFound|ProvenanceMissing|not found/i.test(String(error))) return noManifest();
    // A manifest store that cannot be parsed is a manifest that does not validate.
    return {
      ...noManifest(),
      hasManifest: true,
      failures: [{ code: "manifest.unreadable", explanation: String(error) }],
    };
  }
  try {
    const store = JSON.parse(reader.json()) as {
      active_manifest?: string;
      manifests?: Record<string, ManifestJson>;
      validation_results?: { activeManifest?: { failure?: { code: string; explanation?: string }[] } };
      validation_status?: { code: string; explanation?: string }[];
    };
    const manifest = store.active_manifest ? store.manifests?.[store.active_manifest] : undefined;
    if (!manifest) return noManifest();
    const all = store.validation_results?.activeManifest?.failure ?? store.validation_status ?? [];
    const failures = all.filter((f) => !TRUST_CODES.has(f.code));
    const actions = manifest.assertions?.find((a) => a.label.startsWith("c2pa.actions"))?.data?.actions ?? [];
    const first = actions.find((a) => a.action === "c2pa.created" || a.action === "c2pa.edited") ?? actions[0];
    const agent = first?.softwareAgent as { name?: string } | string | undefined;
    const gen = manifest.claim_generator_info?.[0];
    return {
      hasManifest: true,
      valid: failures.length === 0,
      trusted: all.length === 0,
      digitalSourceType: typeof first?.digitalSourceType === "string" ? first.digitalSourceType : undefined,
      model: typeof agent === "string" ? agent : agent?.name,
      action: typeof first?.action === "string" ? first.action : undefined,
      generator: gen ? `${gen.name ?? ""} ${gen.version ?? ""}`.trim() : undefined,
      signer: { commonName: manifest.signature_info?.common_name, issuer: manifest.signature_info?.issuer },
      signedAt: typeof first?.when === "string" ? first.when : manifest.signature_info?.time,
      ingredients: manifest.ingredients?.length ?? 0,
      failures,
    };
  } finally {
    reader.free();
  }
}
