import { redirect } from "react-router";
import { getUiUser } from "~/lib/session.server";
import type { Route } from "./+types/home";

export const meta: Route.MetaFunction = () => [{ title: "Atelier — AI images and videos" }];

export async function loader({ request }: Route.LoaderArgs) {
  if (await getUiUser(request)) throw redirect("/studio");
  return null;
}

const FEATURES = [
  {
    title: "Studio",
    text: "Pick a model, describe the picture or clip, and watch it finish. Your results stay in a gallery with downloads.",
  },
  {
    title: "Fair credits",
    text: "New accounts start with free credits, plus one more every day you check in. A failed generation costs nothing.",
  },
  {
    title: "API and keys",
    text: "Everything the browser does, your programs can do with an API key — documented endpoint by endpoint.",
  },
];

export default function Home() {
  return (
    <div className="space-y-12 py-8">
      <section className="mx-auto max-w-2xl text-center" aria-labelledby="hero-h">
        <h1 id="hero-h" className="text-3xl font-bold tracking-tight sm:text-4xl">
          Create images and videos with AI
        </h1>
        <p className="mt-4 text-lg text-slate-700">
          Atelier runs generations on OpenAI, Replicate, Kling and Runway — or a built-in simulator — and charges credits
          only when a result is delivered. Use it in the browser or from your own programs with an API key.
        </p>
        <div className="mt-8 flex flex-wrap justify-center gap-3">
          <a href="/sign-up" className="btn-primary">
            Create an account
          </a>
          <a href="/sign-in" className="btn-secondary">
            Sign in
          </a>
        </div>
      </section>
      <section aria-label="Features" className="grid grid-cols-1 gap-4 md:grid-cols-3">
        {FEATURES.map((f) => (
          <div key={f.title} className="card">
            <h2 className="text-lg font-semibold">{f.title}</h2>
            <p className="mt-2 text-sm text-slate-700">{f.text}</p>
          </div>
        ))}
      </section>
      <p className="text-center text-sm text-slate-700">
        Building something? Read the{" "}
        <a href="/docs" className="link">
          API reference
        </a>
        .
      </p>
    </div>
  );
}
