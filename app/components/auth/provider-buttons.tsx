import { LogIn } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Button } from "~/components/ui";

export interface ProviderChoice {
  id: string;
  name: string;
}

/**
 * One "Continue with …" button per configured provider: each a plain form post to /sign-in/provider, so it works
 * without JavaScript. `next` is where to land afterwards; `ref` the invite code of the sign-up link.
 */
export function ProviderButtons({
  providers,
  next,
  inviteCode,
}: {
  providers: readonly ProviderChoice[];
  next?: string;
  inviteCode?: string;
}) {
  const { t } = useTranslation("auth");
  if (providers.length === 0) return null;
  return (
    <div className="space-y-3">
      {providers.map((provider) => (
        <form key={provider.id} method="post" action="/sign-in/provider">
          <input type="hidden" name="provider" value={provider.id} />
          {next ? <input type="hidden" name="next" value={next} /> : null}
          {inviteCode ? <input type="hidden" name="ref" value={inviteCode} /> : null}
          <Button type="submit" variant="secondary" className="w-full">
            <LogIn aria-hidden="true" />
            {t("continueWith", { provider: provider.name })}
          </Button>
        </form>
      ))}
      <p className="flex items-center gap-3 text-xs text-muted-foreground" aria-hidden="true">
        <span className="h-px flex-1 bg-border" />
        {t("orWithEmail")}
        <span className="h-px flex-1 bg-border" />
      </p>
    </div>
  );
}
