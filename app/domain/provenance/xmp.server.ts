/**
 * The IPTC digital source type in XMP (docs/provenance.md): `Iptc4xmpExt:DigitalSourceType` =
 * trainedAlgorithmicMedia, the AI label news and social platforms read besides C2PA. PNG carries XMP in an `iTXt`
 * chunk keyed `XML:com.adobe.xmp`, placed right after IHDR — before the manifest is signed, so the manifest's hash
 * covers it.
 */
import { crc32 } from "node:zlib";
import { TRAINED_ALGORITHMIC_MEDIA } from "./c2pa.server";

export function xmpPacket(agent: string): string {
  const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
  return (
    `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>` +
    `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
    `<rdf:Description rdf:about="" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/" ` +
    `xmlns:xmp="http://ns.adobe.com/xap/1.0/" Iptc4xmpExt:DigitalSourceType="${TRAINED_ALGORITHMIC_MEDIA}" ` +
    `xmp:CreatorTool="${esc(agent)}"/></rdf:RDF></x:xmpmeta><?xpacket end="r"?>`
  );
}

const be32 = (n: number) => new Uint8Array([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);

/** `png` with an XMP `iTXt` chunk after its IHDR; a file that is not a PNG comes back unchanged. */
export function withPngXmp(png: Uint8Array, packet: string): Uint8Array {
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (png.length < 33 || sig.some((b, i) => png[i] !== b)) return png;
  const ihdrEnd = 8 + 12 + ((png[8]! << 24) | (png[9]! << 16) | (png[10]! << 8) | png[11]!);
  const enc = new TextEncoder();
  // keyword \0, compression flag 0, method 0, language tag \0, translated keyword \0, text.
  const data = new Uint8Array([...enc.encode("XML:com.adobe.xmp"), 0, 0, 0, 0, 0, ...enc.encode(packet)]);
  const typeAndData = new Uint8Array([...enc.encode("iTXt"), ...data]);
  const chunk = new Uint8Array([...be32(data.length), ...typeAndData, ...be32(crc32(typeAndData))]);
  const out = new Uint8Array(png.length + chunk.length);
  out.set(png.subarray(0, ihdrEnd), 0);
  out.set(chunk, ihdrEnd);
  out.set(png.subarray(ihdrEnd), ihdrEnd + chunk.length);
  return out;
}
