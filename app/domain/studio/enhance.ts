/**
 * "Enhance prompt" (docs/studio.md "Enhance prompt"): a text model rewrites a short prompt into a detailed one that
 * the person edits before generating. The rules here are client-safe: the instructions the model gets, what it may
 * be given, how its answer becomes a prompt, and the simulated rewrite the demo's simulated text models give.
 */

/** A prompt longer than this is detailed already: enhancing is for short ones. */
export const ENHANCE_MAX_INPUT = 500;
/** The rewrite must still be a valid generation prompt (validate.server.ts: at most 4000 characters). */
export const ENHANCED_MAX = 4000;

/** What the text model is told. A simulated text model recognises it and answers with `simulatedEnhancement`. */
export const REWRITER_INSTRUCTIONS =
  "You rewrite a short prompt for an image or video generation model into one detailed prompt: keep the subject " +
  "and intent, add the setting, lighting, composition, camera or medium, colours and mood, in one paragraph of at " +
  "most 80 words. Answer with the prompt only, no preamble and no quotes.";

const LIGHT = ["soft golden-hour light", "diffuse overcast light", "dramatic rim lighting", "gentle morning haze"];
const FRAMING = ["a balanced rule-of-thirds composition", "a low wide angle", "a close, intimate framing"];
const MEDIUM = ["35 mm film photograph", "highly detailed digital painting", "cinematic still, shallow depth of field"];
const PALETTE = ["a muted earthy palette", "rich saturated colours", "cool blue and teal tones", "warm amber tones"];
const MOTION = ["a slow dolly-in", "a steady tracking shot", "a gentle pan from left to right"];

function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The simulated rewrite: the prompt kept as written, with details picked from it (the same prompt, the same text). */
export function simulatedEnhancement(prompt: string): string {
  const subject = prompt
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[.!]+$/, "");
  const h = hash(subject);
  const pick = <T>(xs: readonly T[], shift: number) => xs[(h >>> shift) % xs.length]!;
  return (
    `${subject}, ${pick(LIGHT, 0)}, ${pick(FRAMING, 4)}, ${pick(PALETTE, 8)}; ${pick(MEDIUM, 12)}, ` +
    `crisp textures and fine detail${/video|clip|moving|motion/i.test(subject) ? `, ${pick(MOTION, 16)}` : ""}.`
  );
}

/** The model's answer as a prompt: no wrapping quotes or "Prompt:" label, one paragraph, within the limit. */
export function cleanEnhanced(text: string): string {
  let t = text.trim().replace(/^(?:enhanced |improved |detailed )?prompt\s*:\s*/i, "");
  t = t.replace(/^["'“”‘’`]+|["'“”‘’`]+$/g, "").trim();
  t = t.replace(/\s+/g, " ");
  if (t.length > ENHANCED_MAX) t = `${t.slice(0, ENHANCED_MAX - 1).trimEnd()}…`;
  return t;
}
