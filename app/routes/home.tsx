import { Clapperboard, Coins, KeyRound, Sparkles } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Link, redirect } from "react-router";
import { buttonVariants } from "~/components/ui";
import { getUiUser } from "~/http/session.server";
import { getInstance } from "~/lib/i18n.server";
import type { Route } from "./+types/home";

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData?.title },
  { name: "description", content: loaderData?.description },
];

export async function loader({ request, context }: Route.LoaderArgs) {
  if (await getUiUser(request)) throw redirect("/studio");
  const { t } = getInstance(context);
  return { title: t("home:title"), description: t("home:description") };
}

const SAMPLES = [
  { id: "dusk", src: "/samples/dusk.svg", w: 800, h: 1000 },
  { id: "coast", src: "/samples/coast.svg", w: 1200, h: 800 },
  { id: "aurora", src: "/samples/aurora.svg", w: 1280, h: 720 },
  { id: "dunes", src: "/samples/dunes.svg", w: 1000, h: 1000 },
  { id: "bloom", src: "/samples/bloom.svg", w: 800, h: 1000 },
  { id: "valley", src: "/samples/valley.svg", w: 1000, h: 750 },
] as const;

const FEATURES = [
  { id: "models", icon: Sparkles },
  { id: "media", icon: Clapperboard },
  { id: "pay", icon: Coins },
  { id: "api", icon: KeyRound },
] as const;

export default function Home() {
  const { t } = useTranslation("home");
  return (
    <div className="space-y-20 pb-8">
      <section
        className="grid items-center gap-10 overflow-x-clip pt-4 lg:grid-cols-[minmax(0,5fr)_minmax(0,6fr)] lg:pt-10"
        aria-labelledby="hero-h"
      >
        <div>
          <p className="inline-flex items-center gap-2 rounded-full bg-accent-soft px-3 py-1 text-xs font-semibold text-accent-soft-foreground">
            <Sparkles aria-hidden="true" className="size-3.5" /> {t("badge")}
          </p>
          <h1 id="hero-h" className="mt-5 text-4xl font-semibold tracking-tight text-balance sm:text-5xl lg:text-6xl">
            {t("heroBefore")}{" "}
            <span className="bg-gradient-to-r from-violet-600 via-fuchsia-600 to-orange-600 bg-clip-text text-transparent dark:from-violet-400 dark:via-fuchsia-400 dark:to-orange-300">
              {t("heroHighlight")}
            </span>
          </h1>
          <p className="mt-5 max-w-xl text-lg text-muted-foreground">{t("lead")}</p>
          <div className="mt-8 flex flex-wrap gap-3">
            <Link to="/sign-up" className={buttonVariants({ size: "lg" })}>
              {t("startFree")}
            </Link>
            <Link to="/sign-in" className={buttonVariants({ size: "lg", variant: "secondary" })}>
              {t("signIn")}
            </Link>
          </div>
        </div>
        <figure aria-label={t("examples")} className="relative">
          <div
            aria-hidden="true"
            className="absolute -inset-4 -z-10 rounded-[3rem] bg-gradient-to-br from-violet-500/20 via-fuchsia-500/10 to-orange-400/20 blur-2xl"
          />
          <ul className="columns-2 gap-3 sm:columns-3">
            {SAMPLES.map((s, i) => (
              <li
                key={s.src}
                className={i >= 4 ? "mb-3 hidden break-inside-avoid sm:block" : "mb-3 break-inside-avoid"}
              >
                <img
                  src={s.src}
                  width={s.w}
                  height={s.h}
                  alt={t(`samples.${s.id}`)}
                  className="h-auto w-full rounded-2xl border border-border shadow-sm"
                  loading={i < 3 ? "eager" : "lazy"}
                />
              </li>
            ))}
          </ul>
        </figure>
      </section>

      <section aria-labelledby="how-h">
        <h2 id="how-h" className="text-2xl font-semibold tracking-tight">
          {t("featuresTitle")}
        </h2>
        <ul className="mt-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {FEATURES.map((f) => (
            <li key={f.id} className="rounded-card border border-border bg-surface p-5">
              <span
                aria-hidden="true"
                className="flex size-10 items-center justify-center rounded-xl bg-accent-soft text-accent-soft-foreground"
              >
                <f.icon className="size-5" />
              </span>
              <h3 className="mt-4 font-semibold">{t(`features.${f.id}.title`)}</h3>
              <p className="mt-1.5 text-sm text-muted-foreground">{t(`features.${f.id}.text`)}</p>
            </li>
          ))}
        </ul>
      </section>

      <section
        className="rounded-3xl bg-foreground px-6 py-10 text-center text-background sm:px-12"
        aria-labelledby="cta-h"
      >
        <h2 id="cta-h" className="text-2xl font-semibold tracking-tight sm:text-3xl">
          {t("ctaTitle")}
        </h2>
        <p className="mx-auto mt-3 max-w-xl opacity-80">{t("ctaText")}</p>
        <Link to="/sign-up" className={buttonVariants({ size: "lg", className: "mt-6" })}>
          {t("ctaButton")}
        </Link>
      </section>
    </div>
  );
}
