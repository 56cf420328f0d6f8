/** Account e-mails in the recipient's language, and the Accept-Language match used at sign-up. */
import { describe, expect, test } from "bun:test";
import { alreadyRegisteredMail, resetPasswordMail, verificationMail } from "~/domain/auth/emails";
import { fromAcceptLanguage, languageOfHeaders } from "~/lib/i18n.server";

const LINK = "https://atelier.example/verify-email?token=abc";

describe("account e-mails", () => {
  test("in the account's language, with the link and the hours", () => {
    const ja = verificationMail({ email: "a@x.test", language: "ja" }, LINK);
    expect(ja.subject).toBe("Atelier のメールアドレスを確認してください");
    expect(ja.text).toContain(LINK);
    expect(ja.text).toContain("24 時間");
    const de = resetPasswordMail({ email: "a@x.test", language: "de" }, LINK);
    expect(de.subject).toBe("Setze dein Atelier-Passwort zurück");
    expect(de.text).toContain("Der Link gilt 1 Stunde");
    const fr = alreadyRegisteredMail({ email: "a@x.test", language: "fr" }, "https://atelier.example");
    expect(fr.text).toContain("Se connecter : https://atelier.example/sign-in");
  });
  test("no language, or one we do not have: English", () => {
    for (const language of [null, undefined, "xx", "EN"]) {
      const mail = verificationMail({ email: "a@x.test", language }, LINK);
      expect(mail.subject).toBe("Confirm your e-mail address for Atelier");
      expect(mail.text.startsWith("Hello,\n\nConfirm this address")).toBe(true);
    }
  });
});

describe("Accept-Language", () => {
  test("exact tags, then the base language, in the visitor's order", () => {
    expect(fromAcceptLanguage("zh-CN,zh;q=0.9")).toBe("zh-CN");
    expect(fromAcceptLanguage("zh-TW")).toBe("zh-CN");
    expect(fromAcceptLanguage("pt")).toBe("pt-BR");
    expect(fromAcceptLanguage("de-AT, fr;q=0.8")).toBe("de");
    expect(fromAcceptLanguage("fr;q=0.5, es-MX;q=0.9")).toBe("es");
    expect(fromAcceptLanguage("sw, tlh;q=0.5, ja;q=0.1")).toBe("ja");
  });
  test("nothing we have, a refusal (q=0), a wildcard or no header: none", () => {
    expect(fromAcceptLanguage("sw, tlh")).toBeNull();
    expect(fromAcceptLanguage("ja;q=0")).toBeNull();
    expect(fromAcceptLanguage("*")).toBeNull();
    expect(fromAcceptLanguage("")).toBeNull();
    expect(fromAcceptLanguage(null)).toBeNull();
  });
  test("the lng cookie outvotes the header", () => {
    expect(languageOfHeaders(new Headers({ cookie: "a=1; lng=fr", "accept-language": "ja" }))).toBe("fr");
    expect(languageOfHeaders(new Headers({ cookie: "lng=xx", "accept-language": "ja" }))).toBe("ja");
    expect(languageOfHeaders(new Headers())).toBeNull();
  });
});
