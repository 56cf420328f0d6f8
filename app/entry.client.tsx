import i18next from "i18next";
import { StrictMode, startTransition } from "react";
import { hydrateRoot } from "react-dom/client";
import { I18nextProvider, initReactI18next } from "react-i18next";
import { HydratedRouter } from "react-router/dom";
import { DEFAULT_LANGUAGE, isLanguage } from "~/lib/languages";
import { loadMessages } from "~/lib/locales/client";

// The server rendered the page in <html lang>; load that language's messages (one chunk) before hydrating, so the
// first client render matches the server's and nothing flashes in another language.
const lang = document.documentElement.lang;
const lng = isLanguage(lang) ? lang : DEFAULT_LANGUAGE;

await i18next.use(initReactI18next).init({
  lng,
  resources: { [lng]: await loadMessages(lng) },
  fallbackLng: false,
  defaultNS: "common",
  interpolation: { escapeValue: false },
});

startTransition(() => {
  hydrateRoot(
    document,
    <I18nextProvider i18n={i18next}>
      <StrictMode>
        <HydratedRouter />
      </StrictMode>
    </I18nextProvider>,
  );
});
