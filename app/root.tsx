import { useTranslation } from "react-i18next";
import { isRouteErrorResponse, Links, Meta, Outlet, Scripts, ScrollRestoration } from "react-router";
import { buttonVariants } from "~/components/ui";
import type { Route } from "./+types/root";
import "./app.css";

export const meta: Route.MetaFunction = () => [{ title: "Atelier" }];
export const links: Route.LinksFunction = () => [{ rel: "icon", href: "/favicon.svg", type: "image/svg+xml" }];

export function Layout({ children }: { children: React.ReactNode }) {
  const { i18n } = useTranslation();
  return (
    <html lang={i18n.language} dir={i18n.dir(i18n.language)}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <Meta />
        <Links />
      </head>
      <body className="min-h-screen">
        {children}
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const { t } = useTranslation();
  let title = t("errors.somethingWrong");
  let details = t("errors.unexpected");
  if (isRouteErrorResponse(error)) {
    title = error.status === 404 ? t("errors.notFoundTitle") : t("errors.errorStatus", { status: error.status });
    details = error.status === 404 ? t("errors.notFound") : error.statusText || details;
  }
  return (
    <main className="mx-auto max-w-xl p-8">
      <h1 className="text-2xl font-semibold">{title}</h1>
      <p className="mt-2 text-muted-foreground">{details}</p>
      <a className={buttonVariants({ variant: "secondary", className: "mt-6" })} href="/">
        {t("errors.backToAtelier")}
      </a>
    </main>
  );
}
