/**
 * The visitor's language for pages (docs/languages.md, docs/decisions/154-i18n-remix-i18next.md): `?lng=`, else
 * the `lng` cookie, else Accept-Language, else English. Runs as the page layout's middleware only, so the JSON API
 * (and its fast path for resource routes) never sees it and its messages stay the spec's English.
 */
import i18next, { type InitOptions, type i18n } from "i18next";
import type { Cookie, RouterContextProvider } from "react-router";
import { createI18nextMiddleware } from "remix-i18next";
import { RESOURCES } from "~/lib/locales/resources.server";
import {
  DEFAULT_LANGUAGE,
  isLanguage,
  LANGUAGE_CODES,
  LANGUAGE_COOKIE,
  LANGUAGE_COOKIE_MAX_AGE,
  type Language,
} from "./languages";

export const I18N_OPTIONS = {
  resources: RESOURCES,
  supportedLngs: LANGUAGE_CODES,
  fallbackLng: DEFAULT_LANGUAGE,
  defaultNS: "common",
  interpolation: { escapeValue: false },
} satisfies InitOptions;

/**
 * The `lng` cookie holds the bare code (`lng=ja`), readable by anyone who sets it by hand, rather than
 * React Router's base64 JSON cookie format.
 */
export const languageCookie: Cookie = {
  name: LANGUAGE_COOKIE,
  isSigned: false,
  expires: undefined,
  async parse(header: string | null) {
    return readLanguageCookie(header);
  },
  async serialize(value: string) {
    return serializeLanguageCookie(isLanguage(value) ? value : DEFAULT_LANGUAGE);
  },
};

export function readLanguageCookie(header: string | null): Language | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name !== LANGUAGE_COOKIE) continue;
    const value = decodeURIComponent(rest.join("="));
    if (isLanguage(value)) return value;
  }
  return null;
}

export function serializeLanguageCookie(lng: Language, secure = false): string {
  return `${LANGUAGE_COOKIE}=${lng}; Path=/; Max-Age=${LANGUAGE_COOKIE_MAX_AGE}; SameSite=Lax${secure ? "; Secure" : ""}`;
}

export const [i18nextMiddleware, getLocale, getInstance] = createI18nextMiddleware({
  detection: {
    supportedLanguages: LANGUAGE_CODES,
    fallbackLanguage: DEFAULT_LANGUAGE,
    cookie: languageCookie,
    order: ["searchParams", "cookie", "header"],
  },
  i18next: I18N_OPTIONS,
});

let english: i18n | null = null;
/** English, for documents rendered without the layout's middleware (an error thrown before it ran). */
async function englishInstance(): Promise<i18n> {
  if (!english) {
    english = i18next.createInstance({ ...I18N_OPTIONS, lng: DEFAULT_LANGUAGE });
    await english.init();
  }
  return english;
}

/** The request's i18next instance (set by the middleware), else English. */
export async function instanceFor(context: Readonly<RouterContextProvider> | undefined): Promise<i18n> {
  try {
    if (context) return getInstance(context);
  } catch {
    // no middleware ran for this request
  }
  return englishInstance();
}

/** The best of our languages for an Accept-Language header: exact tags first, then the base language, by q-order. */
export function fromAcceptLanguage(header: string | null | undefined): Language | null {
  if (!header) return null;
  const wanted = header
    .split(",")
    .map((part, order) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      return { tag: tag.trim().toLowerCase(), q: q ? Number(q.slice(2)) : 1, order };
    })
    .filter((w) => w.tag && w.tag !== "*" && w.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order);
  for (const { tag } of wanted) {
    const exact = LANGUAGE_CODES.find((code) => code.toLowerCase() === tag);
    if (exact) return exact;
    const base = tag.split("-")[0];
    const near = LANGUAGE_CODES.find((code) => code.toLowerCase().split("-")[0] === base);
    if (near) return near;
  }
  return null;
}

/** A request's language outside the page layout (sign-up's hook: the account's language): cookie, then header. */
export function languageOfHeaders(headers: Headers | undefined): Language | null {
  if (!headers) return null;
  return readLanguageCookie(headers.get("cookie")) ?? fromAcceptLanguage(headers.get("accept-language"));
}

const fixed = new Map<Language, i18n>();
/** A translator for one language (e-mails, which go out with no request of the recipient's). */
export function translatorFor(lng: string | null | undefined): i18n["t"] {
  const language = isLanguage(lng) ? lng : DEFAULT_LANGUAGE;
  let instance = fixed.get(language);
  if (!instance) {
    instance = i18next.createInstance({ ...I18N_OPTIONS, lng: language, initAsync: false });
    void instance.init();
    fixed.set(language, instance);
  }
  return instance.t;
}
