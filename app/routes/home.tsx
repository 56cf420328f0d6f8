import { redirect } from "react-router";
import { getUiUser } from "~/lib/session.server";
import type { Route } from "./+types/home";

export const meta: Route.MetaFunction = () => [{ title: "Atelier — AI images and videos" }];

export async function loader({ request }: Route.LoaderArgs) {
  if (await getUiUser(request)) throw redirect("/studio");
  return null;
}

export default function Home() {
  return (
    <section className="mx-auto max-w-2xl py-12 text-center">
      <h1 className="text-4xl font-bold tracking-tight">Create images and videos with AI</h1>
      <p className="mt-4 text-lg text-slate-600">
        Atelier runs generations on OpenAI, Replicate, Kling and Runway — or a built-in simulator — and charges credits
        only when a result is delivered. Use it in the browser or from your own programs with an API key.
      </p>
      <div className="mt-8 flex justify-center gap-3">
        <a href="/sign-up" className="btn-primary">
          Create an account
        </a>
        <a href="/sign-in" className="btn-secondary">
          Sign in
        </a>
      </div>
    </section>
  );
}
