import { Languages } from "lucide-react";
import { useTranslation } from "react-i18next";
import { useLocation } from "react-router";
import { isLanguage, LANGUAGE_COOKIE, LANGUAGES } from "~/lib/languages";

/**
 * The language menu of every page: a plain form post to /language (the `lng` cookie), so it works without
 * JavaScript; with it, choosing a language submits at once. The page reloads in the new language.
 */
export function LanguageMenu() {
  const { t, i18n } = useTranslation();
  const { pathname, search } = useLocation();
  return (
    <form method="post" action="/language" className="flex items-center gap-2" data-testid="language-menu">
      <input type="hidden" name="redirectTo" value={pathname + search} />
      <label className="flex items-center gap-1.5">
        <Languages aria-hidden="true" className="size-4" />
        <span className="sr-only">{t("language.label")}</span>
        <select
          name={LANGUAGE_COOKIE}
          defaultValue={i18n.language}
          className="rounded-lg border border-border bg-surface px-2 py-1 text-sm text-foreground"
          onChange={(event) => event.currentTarget.form?.requestSubmit()}
        >
          {LANGUAGES.map((language) => (
            <option key={language.code} value={language.code} lang={language.code}>
              {language.name}
            </option>
          ))}
        </select>
      </label>
      <noscript>
        <button type="submit" className="rounded-lg border border-border px-2 py-1 hover:bg-muted">
          {t("language.change")}
        </button>
      </noscript>
    </form>
  );
}

/**
 * The page in every language for search engines: one `hreflang` alternate per language (`?lng=`), `x-default`
 * without it, and a canonical URL for the language shown. React hoists these into <head>.
 */
export function LanguageAlternates({ origin }: { origin: string }) {
  const { pathname, search } = useLocation();
  const chosen = new URLSearchParams(search).get(LANGUAGE_COOKIE);
  const base = origin + pathname;
  return (
    <>
      <link rel="canonical" href={isLanguage(chosen) ? `${base}?${LANGUAGE_COOKIE}=${chosen}` : base} />
      {LANGUAGES.map((language) => (
        <link
          key={language.code}
          rel="alternate"
          hrefLang={language.code}
          href={`${base}?${LANGUAGE_COOKIE}=${language.code}`}
        />
      ))}
      <link rel="alternate" hrefLang="x-default" href={base} />
    </>
  );
}
