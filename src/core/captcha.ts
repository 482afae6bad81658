import { ServiceUnavailable } from './errors.js';

/**
 * Captcha checks for public forms. A verifier asks the provider whether a token a browser got
 * from its widget is genuine; Cloudflare Turnstile and hCaptcha share one `siteverify` protocol
 * (a form POST of secret, response and remoteip answered with JSON `{ success }`), so one
 * implementation serves both. The secret travels only to the provider, over HTTPS.
 */
export interface CaptchaVerifier {
  /** Whether `token` is a valid, unused captcha answer (from `remoteIp`). */
  verify(token: string, remoteIp: string | null): Promise<boolean>;
}

export const SITEVERIFY_URLS = {
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
  hcaptcha: 'https://api.hcaptcha.com/siteverify',
} as const;

export type SiteverifyProvider = keyof typeof SITEVERIFY_URLS;

/** How long a provider may take before the form is answered 503 (a bot gains nothing from a slow provider). */
const VERIFY_TIMEOUT_MS = 5000;

export class SiteverifyCaptchaVerifier implements CaptchaVerifier {
  constructor(private readonly options: { provider: SiteverifyProvider; secret: string; verifyUrl?: string | null }) {}

  async verify(token: string, remoteIp: string | null): Promise<boolean> {
    if (!token.trim()) return false;
    const form = new URLSearchParams({ secret: this.options.secret, response: token });
    if (remoteIp) form.set('remoteip', remoteIp);
    let body: unknown;
    try {
      const response = await fetch(this.options.verifyUrl || SITEVERIFY_URLS[this.options.provider], {
        method: 'POST', body: form, signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS), redirect: 'error',
      });
      if (!response.ok) throw new Error(`siteverify answered ${response.status}`);
      body = await response.json();
    } catch {
      // The provider could not say: neither pass a bot nor blame the visitor.
      throw new ServiceUnavailable('The captcha could not be checked; try again shortly.');
    }
    return typeof body === 'object' && body !== null && (body as { success?: unknown }).success === true;
  }
}
