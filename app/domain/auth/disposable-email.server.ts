/**
 * Throwaway mailboxes (mailinator and the like) get no account: free sign-up credits attract them. The list is the
 * maintained npm package `disposable-email-domains` (its exact domains, and the ones whose every subdomain is one).
 */
import domains from "disposable-email-domains";
import wildcards from "disposable-email-domains/wildcard.json";

let exact: Set<string> | undefined;
let anySubdomain: Set<string> | undefined;

/** True when the address's domain, or a domain it is under, is a known disposable mail service. */
export function isDisposableEmail(email: string): boolean {
  exact ??= new Set(domains as string[]);
  anySubdomain ??= new Set(wildcards as string[]);
  const domain = email
    .slice(email.lastIndexOf("@") + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, "");
  if (!domain) return false;
  if (exact.has(domain)) return true;
  const labels = domain.split(".");
  for (let i = 1; i < labels.length - 1; i++) {
    const parent = labels.slice(i).join(".");
    if (anySubdomain.has(parent) || exact.has(parent)) return true;
  }
  return anySubdomain.has(domain);
}
