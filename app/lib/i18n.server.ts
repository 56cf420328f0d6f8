/**
 * The visitor's language for pages (docs/languages.md, docs/decisions/154-i18n-remix-i18next.md): `?lng=`, else
 * the `lng` cookie, else Accept-Language, else English. Runs as the page layout's middleware only, so the JSON API
 * (and its fast path for resource routes) never sees it and its messages stay the spec's English.
 */
import i18next, { type InitOptions, type i18n } from "i18next";
import type { Cookie, RouterContextProvider } from "react-router";
import { createI18nextMiddleware } from "remix-i18next";
import { RESOURCES } from "~/locales/resources.server";
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
