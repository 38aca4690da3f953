// A browser for OAuth flows without a browser: follows redirects between Chute and a provider by hand, keeping each
// origin's cookies, and stops at the first answer that is not a redirect or at a redirect leaving the flow
// (Chute's /dashboard ...). Enough to drive real code flows against real providers in API tests.

export interface FlowEnd {
  /** The last answer: a page, an error, or the redirect that left the flow. */
  response: Response;
  /** Where that last redirect pointed, if it was one. */
  location: string | null;
  /** Every URL requested, in order. */
  visited: string[];
}

export class CookieBrowser {
  private readonly jars = new Map<string, Map<string, string>>();

  constructor(private readonly accept = 'text/html,application/xhtml+xml') {}

  /** Sets a cookie for an origin, e.g. Chute's session cookie string "chute_session=...". */
  setCookie(origin: string, cookie: string): void {
    const [name, ...value] = cookie.split('=');
    this.jar(origin).set(name!, value.join('='));
  }

  cookie(origin: string, name: string): string | undefined {
    return this.jar(origin).get(name);
  }

  /** One request with this origin's cookies; the answer's cookies are kept. */
  async get(url: string, accept = this.accept): Promise<Response> {
    const target = new URL(url);
    const cookies = [...this.jar(target.origin)].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(target, {
      redirect: 'manual',
      headers: { accept, ...(cookies ? { cookie: cookies } : {}) },
    });
    for (const set of response.headers.getSetCookie()) this.keep(target.origin, set);
    return response;
  }

  /**
   * Follows redirects from `url` while `within(url)` holds for the next address (default: any address under
   * /api/auth/oauth/ or not on `chuteOrigin`). `beforeEach` may rewrite an address before it is requested.
   */
  async follow(
    url: string,
    chuteOrigin: string,
    options: { rewrite?: (url: URL) => URL | Promise<URL>; accept?: string } = {},
  ): Promise<FlowEnd> {
    const visited: string[] = [];
    let next = new URL(url);
    for (let hops = 0; hops < 20; hops++) {
      if (options.rewrite) next = await options.rewrite(next);
      visited.push(next.href);
      const response = await this.get(next.href, options.accept);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || !location) return { response, location: null, visited };
      const target = new URL(location, next);
      const inFlow = target.origin !== chuteOrigin || target.pathname.startsWith('/api/auth/oauth/');
      if (!inFlow) {
        await response.arrayBuffer();
        return { response, location: target.pathname + target.search, visited };
      }
      await response.arrayBuffer();
      next = target;
    }
    throw new Error(`too many redirects: ${visited.join(' -> ')}`);
  }

  private jar(origin: string): Map<string, string> {
    let jar = this.jars.get(origin);
    if (!jar) this.jars.set(origin, (jar = new Map()));
    return jar;
  }

  private keep(origin: string, setCookie: string): void {
    const [pair, ...attributes] = setCookie.split(';');
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq).trim();
    const value = pair!.slice(eq + 1).trim();
    const expired = attributes.some((a) => {
      const [k, v] = a.trim().split('=');
      if (k!.toLowerCase() === 'max-age') return Number(v) <= 0;
      if (k!.toLowerCase() === 'expires') return Date.parse(v ?? '') <= Date.now();
      return false;
    });
    if (expired || value === '') this.jar(origin).delete(name);
    else this.jar(origin).set(name, value);
  }
}
