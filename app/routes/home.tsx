import { Clapperboard, Coins, KeyRound, Sparkles } from "lucide-react";
import { Link, redirect } from "react-router";
import { buttonVariants } from "~/components/ui";
import { getUiUser } from "~/http/session.server";
import type { Route } from "./+types/home";

export const meta: Route.MetaFunction = () => [
  { title: "Atelier — create images and videos with AI" },
  {
    name: "description",
    content: "Describe a picture or a clip, pick a model, and watch it arrive. Free credits to start.",
  },
];

export async function loader({ request }: Route.LoaderArgs) {
  if (await getUiUser(request)) throw redirect("/studio");
  return null;
}

const SAMPLES = [
  { src: "/samples/dusk.svg", w: 800, h: 1000, prompt: "Violet mountains at dusk, a warm sun low over the ridges" },
  { src: "/samples/coast.svg", w: 1200, h: 800, prompt: "A bright coastline at noon, layered blue headlands" },
  { src: "/samples/aurora.svg", w: 1280, h: 720, prompt: "Northern lights over a dark valley, stars, 16:9" },
  { src: "/samples/dunes.svg", w: 1000, h: 1000, prompt: "Orange dunes under a pale desert sun" },
  { src: "/samples/bloom.svg", w: 800, h: 1000, prompt: "Pink hills in a dreamlike haze, poster style" },
  { src: "/samples/valley.svg", w: 1000, h: 750, prompt: "A green valley in the morning, soft light" },
];

const FEATURES = [
  {
    icon: Sparkles,
    title: "Many models, one studio",
    text: "OpenAI, FLUX on Replicate, Kling and Runway side by side — compare prices and pick per prompt.",
  },
  {
    icon: Clapperboard,
    title: "Images and videos",
    text: "Stills in any aspect ratio and short clips that play right in your gallery.",
  },
  {
    icon: Coins,
    title: "Pay for results only",
    text: "Free credits to start and one more every day you check in. A failed generation costs nothing.",
  },
  {
    icon: KeyRound,
    title: "An API when you need it",
    text: "Everything the studio does, your programs can do with an API key.",
  },
];

export default function Home() {
  return (
    <div className="space-y-20 pb-8">
      <section
        className="grid items-center gap-10 overflow-x-clip pt-4 lg:grid-cols-[minmax(0,5fr)_minmax(0,6fr)] lg:pt-10"
        aria-labelledby="hero-h"
      >
        <div>
          <p className="inline-flex items-center gap-2 rounded-full bg-accent-soft px-3 py-1 text-xs font-semibold text-accent-soft-foreground">
            <Sparkles aria-hidden="true" className="size-3.5" /> 10 free credits when you sign up
          </p>
          <h1 id="hero-h" className="mt-5 text-4xl font-semibold tracking-tight text-balance sm:text-5xl lg:text-6xl">
            Turn words into{" "}
            <span className="bg-gradient-to-r from-violet-600 via-fuchsia-600 to-orange-600 bg-clip-text text-transparent dark:from-violet-400 dark:via-fuchsia-400 dark:to-orange-300">
              images and videos
            </span>
          </h1>
          <p className="mt-5 max-w-xl text-lg text-muted-foreground">
            Describe what you imagine, choose a model, and watch your result arrive in seconds. Keep everything in one
            gallery, download it, and try the same idea on another model with one click.
          </p>
          <div className="mt-8 flex flex-wrap gap-3">
            <Link to="/sign-up" className={buttonVariants({ size: "lg" })}>
              Start creating — it’s free
            </Link>
            <Link to="/sign-in" className={buttonVariants({ size: "lg", variant: "secondary" })}>
              Sign in
            </Link>
          </div>
        </div>
        <figure aria-label="Examples made in Atelier" className="relative">
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
                  alt={s.prompt}
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
          Everything in one place
        </h2>
        <ul className="mt-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {FEATURES.map((f) => (
            <li key={f.title} className="rounded-card border border-border bg-surface p-5">
              <span
                aria-hidden="true"
                className="flex size-10 items-center justify-center rounded-xl bg-accent-soft text-accent-soft-foreground"
              >
                <f.icon className="size-5" />
              </span>
              <h3 className="mt-4 font-semibold">{f.title}</h3>
              <p className="mt-1.5 text-sm text-muted-foreground">{f.text}</p>
            </li>
          ))}
        </ul>
      </section>

      <section
        className="rounded-3xl bg-foreground px-6 py-10 text-center text-background sm:px-12"
        aria-labelledby="cta-h"
      >
        <h2 id="cta-h" className="text-2xl font-semibold tracking-tight sm:text-3xl">
          Your first result is a minute away
        </h2>
        <p className="mx-auto mt-3 max-w-xl opacity-80">No card needed. Sign up, type a prompt, press Generate.</p>
        <Link to="/sign-up" className={buttonVariants({ size: "lg", className: "mt-6" })}>
          Create an account
        </Link>
      </section>
    </div>
  );
}
