/**
 * The pipeline's `provenance` step (docs/provenance.md, ADR 146): after `safety`, before the store, every result is
 * marked as made by AI — the IPTC digital source type in XMP (PNG) and a C2PA manifest signed by the operator
 * (c2pa.created, or c2pa.edited with the input pictures as ingredients; the model as the software agent). What is
 * stored and downloaded is the signed file; renditions are made from it.
 *
 * Without a signer (no key configured and none could be made, or the SDK does not load) the result is kept unsigned
 * and the error logged once: a missing label is the operator's to fix, not a reason to fail every user's task.
 */
import { signAsset } from "~/domain/provenance/c2pa.server";
import type { SigningCredentials } from "~/domain/provenance/cose.server";
import { loadSigningCredentials } from "~/domain/provenance/credentials.server";
import { withPngXmp, xmpPacket } from "~/domain/provenance/xmp.server";
import { log } from "~/lib/log.server";
import { APP_VERSION } from "~/lib/version";
import type { ResultStep } from "./pipeline.server";

export interface ProvenanceDeps {
  dataDir: string;
  /** C2PA_SIGNING_KEY / C2PA_CERT_CHAIN: PEM text or paths; absent: the self-signed development signer. */
  key?: string;
  chain?: string;
}

/** Formats the SDK signs here; anything else is kept as it is. */
const SIGNED = new Set(["image/png", "image/jpeg", "image/webp", "video/mp4"]);

export function provenanceStep(deps: ProvenanceDeps): ResultStep {
  let creds: Promise<SigningCredentials> | undefined;
  let warned = false;
  const signer = () => {
    creds ??= (async () => loadSigningCredentials({ key: deps.key, chain: deps.chain, dataDir: deps.dataDir }))();
    return creds;
  };
  return {
    name: "provenance",
    timeoutMs: 15_000,
    async run(file, task) {
      if (!SIGNED.has(file.contentType)) return { kind: "keep", note: { signed: false, reason: "format" } };
      const bytes = file.contentType === "image/png" ? withPngXmp(file.bytes, xmpPacket(task.model)) : file.bytes;
      try {
        const inputs = await Promise.all(
          Object.entries(task.inputs ?? {}).map(async ([name, input]) => ({
            bytes: await input!.bytes(),
            contentType: input!.contentType,
            title: name,
          })),
        );
        const signed = await signAsset(await signer(), bytes, {
          format: file.contentType,
          title: `${task.id}-${file.index}`,
          generator: { name: "Atelier", version: APP_VERSION },
          agent: task.model,
          when: new Date(task.createdAt),
          inputs,
        });
        return { kind: "keep", bytes: signed, note: { signed: true } };
      } catch (error) {
        if (!warned) {
          warned = true;
          log.error("provenance: results are not signed (C2PA)", { error: String(error), format: file.contentType });
        }
        return { kind: "keep", bytes, note: { signed: false, reason: String(error) } };
      }
    },
  };
}
