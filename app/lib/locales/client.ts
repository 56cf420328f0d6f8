import type { Language } from "~/lib/languages";
import type { Resources } from "./en";

/** One chunk per language: the browser downloads the messages of the page's language only. */
const loaders: Record<Language, () => Promise<{ default: unknown }>> = {
  en: () => import("./en"),
  "zh-CN": () => import("./zh-CN"),
  es: () => import("./es"),
  ja: () => import("./ja"),
  de: () => import("./de"),
  fr: () => import("./fr"),
  "pt-BR": () => import("./pt-BR"),
};

export async function loadMessages(lng: Language): Promise<Resources> {
  return (await loaders[lng]()).default as Resources;
}
