/**
 * Writes the landing page's sample artworks (app/public/samples/*.svg): small
 * layered landscapes, each with its own palette and aspect ratio; and each
 * model's card sample (app/public/samples/models/*.png): the simulator's own
 * rendering of the catalog's sample prompt, marked "SIMULATED · <model>" with
 * the model's default shape as caption — what this app renders without a
 * provider key, not a provider's output. Run once; the files are committed.
 * `bun scripts/make-samples.ts`
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CATALOG, SAMPLE_SIZE, sampleImage } from "../app/domain/catalog";
import { renderImagePng } from "../app/providers/simulator/render.server";
import { simulatedShape } from "../app/providers/simulator/simulator.server";

interface Scene {
  name: string;
  w: number;
  h: number;
  sky: [string, string, string];
  sun: string;
  layers: string[];
  seed: number;
  stars?: boolean;
}

function rand(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

function ridge(r: () => number, w: number, base: number, amp: number, steps: number) {
  const pts: string[] = [`0,${base}`];
  for (let i = 0; i <= steps; i++) {
    const x = (i / steps) * w;
    const y = base - amp * (0.35 + 0.65 * r()) * (i % 2 ? 1 : 0.55);
    pts.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  }
  return pts.join(" ");
}

function svg(s: Scene) {
  const r = rand(s.seed);
  const layers = s.layers
    .map((c, i) => {
      const base = s.h * (0.55 + (i * 0.45) / s.layers.length);
      const top = ridge(r, s.w, base, s.h * (0.28 - i * 0.05), 6 + i * 3);
      return `<polygon fill="${c}" points="${top} ${s.w},${s.h} 0,${s.h}"/>`;
    })
    .join("");
  const stars = s.stars
    ? Array.from(
        { length: 60 },
        () =>
          `<circle cx="${(r() * s.w).toFixed(0)}" cy="${(r() * s.h * 0.5).toFixed(0)}" r="${(r() * 1.6 + 0.3).toFixed(1)}" fill="#fff" opacity="${(r() * 0.7 + 0.2).toFixed(2)}"/>`,
      ).join("")
    : "";
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${s.w} ${s.h}" width="${s.w}" height="${s.h}">
<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${s.sky[0]}"/><stop offset=".55" stop-color="${s.sky[1]}"/><stop offset="1" stop-color="${s.sky[2]}"/></linearGradient>
<radialGradient id="glow"><stop offset="0" stop-color="${s.sun}" stop-opacity=".9"/><stop offset="1" stop-color="${s.sun}" stop-opacity="0"/></radialGradient></defs>
<rect width="100%" height="100%" fill="url(#sky)"/>${stars}
<circle cx="${s.w * 0.68}" cy="${s.h * 0.42}" r="${Math.min(s.w, s.h) * 0.34}" fill="url(#glow)"/>
<circle cx="${s.w * 0.68}" cy="${s.h * 0.42}" r="${Math.min(s.w, s.h) * 0.09}" fill="${s.sun}"/>
${layers}</svg>`;
}

const SCENES: Scene[] = [
  {
    name: "dusk",
    w: 800,
    h: 1000,
    sky: ["#1e1b4b", "#7c3aed", "#fb923c"],
    sun: "#fde68a",
    layers: ["#4c1d95", "#2e1065", "#1e1b4b"],
    seed: 7,
  },
  {
    name: "coast",
    w: 1200,
    h: 800,
    sky: ["#0ea5e9", "#7dd3fc", "#fef3c7"],
    sun: "#fff7ed",
    layers: ["#0369a1", "#075985", "#0c4a6e"],
    seed: 3,
  },
  {
    name: "dunes",
    w: 1000,
    h: 1000,
    sky: ["#f97316", "#fdba74", "#fef3c7"],
    sun: "#fff7ed",
    layers: ["#ea580c", "#c2410c", "#9a3412"],
    seed: 11,
  },
  {
    name: "aurora",
    w: 1280,
    h: 720,
    sky: ["#020617", "#064e3b", "#10b981"],
    sun: "#d1fae5",
    layers: ["#022c22", "#031b16", "#020617"],
    seed: 5,
    stars: true,
  },
  {
    name: "bloom",
    w: 800,
    h: 1000,
    sky: ["#831843", "#ec4899", "#fbcfe8"],
    sun: "#fff1f2",
    layers: ["#9d174d", "#701a75", "#4a044e"],
    seed: 19,
  },
  {
    name: "valley",
    w: 1000,
    h: 750,
    sky: ["#14532d", "#86efac", "#f0fdf4"],
    sun: "#fefce8",
    layers: ["#166534", "#14532d", "#052e16"],
    seed: 23,
  },
];

const dir = join(import.meta.dirname, "../app/public/samples");
for (const s of SCENES) writeFileSync(join(dir, `${s.name}.svg`), svg(s));
console.log(`wrote ${SCENES.length} samples to ${dir}`);

const models = join(dir, "models");
mkdirSync(models, { recursive: true });
for (const o of CATALOG) {
  const { look } = simulatedShape({
    aiType: o.aiType,
    provider: o.provider,
    model: o.model,
    options: {},
    specs: o.options,
    label: o.label,
  });
  const png = renderImagePng(
    o.sample,
    { ...look, ratio: [SAMPLE_SIZE.width, SAMPLE_SIZE.height] },
    SAMPLE_SIZE.width * SAMPLE_SIZE.height,
  );
  // Run over CATALOG (the shipped models): each has a sample path.
  const file = join(dir, "..", sampleImage(o)!.src);
  writeFileSync(file, png);
  console.log(`${file}: ${png.byteLength} bytes`);
}
