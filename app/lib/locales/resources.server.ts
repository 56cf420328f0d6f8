import type { Language } from "~/lib/languages";
import de from "./de";
import en, { type Resources } from "./en";
import es from "./es";
import fr from "./fr";
import ja from "./ja";
import ptBR from "./pt-BR";
import zhCN from "./zh-CN";

/** Every language's messages, for the server (which renders any language); the browser loads only its own. */
export const RESOURCES: Record<Language, Resources> = {
  en,
  "zh-CN": zhCN as Resources,
  es: es as Resources,
  ja: ja as Resources,
  de: de as Resources,
  fr: fr as Resources,
  "pt-BR": ptBR as Resources,
};
