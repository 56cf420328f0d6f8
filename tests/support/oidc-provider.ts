/**
 * A real OpenID Connect provider for tests (oauth2-mock-server): discovery, an `/authorize` that approves at once,
 * `/token` (PKCE checked), `/userinfo` and JWKS. Whoever "signs in" next is `provider.person`; `provider.refuseNext()`
 * makes the next authorization come back with `error=access_denied`, as when a person cancels at the provider.
 *
 *   const idp = await startOidcProvider();   // idp.issuer → OIDC_ISSUER
 *   idp.person = { sub: "u-1", email: "a@example.test", email_verified: true, name: "A" };
 */
import { Events, OAuth2Server } from "oauth2-mock-server";

export interface ProviderPerson {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

export interface TestOidcProvider {
  issuer: string;
  person: ProviderPerson;
  /** The query of the last authorization request (state, code_challenge, redirect_uri …). */
  lastAuthorize: URLSearchParams | null;
  refuseNext(): void;
  stop(): Promise<void>;
}

export async function startOidcProvider(): Promise<TestOidcProvider> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(0, "127.0.0.1");
  const address = server.address();
  // Bun may resolve `localhost` to ::1 first: name the address it listens on.
  server.issuer.url = `http://127.0.0.1:${address.port}`;
  let refuse = false;
  const idp: TestOidcProvider = {
    issuer: server.issuer.url,
    person: { sub: "person-1", email: "person@example.test", email_verified: true, name: "Person" },
    lastAuthorize: null,
    refuseNext: () => {
      refuse = true;
    },
    stop: () => server.stop(),
  };
  server.service.on(Events.BeforeAuthorizeRedirect, (redirect, req) => {
    idp.lastAuthorize = new URL(req.url ?? "/", idp.issuer).searchParams;
    if (!refuse) return;
    refuse = false;
    redirect.url.searchParams.delete("code");
    redirect.url.searchParams.set("error", "access_denied");
  });
  server.service.on(Events.BeforeTokenSigning, (token) => {
    Object.assign(token.payload, idp.person);
  });
  server.service.on(Events.BeforeUserinfo, (reply) => {
    reply.body = { ...idp.person };
  });
  return idp;
}
