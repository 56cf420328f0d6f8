import type { Resources } from "~/lib/locales/en";

// t("…") keys are checked against English's messages at type-check time.
declare module "i18next" {
  interface CustomTypeOptions {
    defaultNS: "common";
    resources: Resources;
  }
}
