import type { Config } from '../config.js';
import { ServiceUnavailable } from '../errors.js';
import { outboundRequest, type OutboundPolicy } from './outbound.js';

/**
 * Captcha checks for public forms. A verifier asks the provider whether a token a browser got
 * from its widget is genuine; Cloudflare Turnstile and hCaptcha share one `siteverify` protocol
 * (a form POST of secret, response and remoteip answered with JSON `{ success }`), so one
 * implementation serves both. The secret travels only to the provider, over HTTPS, or to a host
 * the operator allowed (CAPTCHA_VERIFY_HOSTS), never to a private address (`core/external/outbound.ts`).
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

/** The siteverify hosts of Cloudflare Turnstile, hCaptcha and Google reCAPTCHA (same protocol). */
const KNOWN_VERIFY_HOSTS = ['challenges.cloudflare.com', 'api.hcaptcha.com', 'hcaptcha.com', 'www.google.com', 'www.recaptcha.net'];

/** Where a captcha verification may go: the known providers' hosts and those of CAPTCHA_VERIFY_HOSTS. */
export function captchaOutboundPolicy(config: Pick<Config, 'OUTBOUND_ALLOW_PRIVATE' | 'CAPTCHA_VERIFY_HOSTS'>): OutboundPolicy {
  const extra = (config.CAPTCHA_VERIFY_HOSTS ?? '').split(',').map((host) => host.trim().toLowerCase()).filter(Boolean);
  return { allowPrivate: config.OUTBOUND_ALLOW_PRIVATE, hosts: [...KNOWN_VERIFY_HOSTS, ...extra] };
}

/** A siteverify answer is a small JSON object; anything larger is not one. */
const MAX_VERIFY_RESPONSE_BYTES = 64 * 1024;

/** How long a provider may take before the form is answered 503 (a bot gains nothing from a slow provider). */
const VERIFY_TIMEOUT_MS = 5000;

export class SiteverifyCaptchaVerifier implements CaptchaVerifier {
  constructor(private readonly options: { provider: SiteverifyProvider; secret: string; verifyUrl?: string | null; policy: OutboundPolicy }) {}

  async verify(token: string, remoteIp: string | null): Promise<boolean> {
    if (!token.trim()) return false;
    const form = new URLSearchParams({ secret: this.options.secret, response: token });
    if (remoteIp) form.set('remoteip', remoteIp);
    let body: unknown;
    try {
      const response = await outboundRequest(this.options.verifyUrl || SITEVERIFY_URLS[this.options.provider], {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString(),
        timeoutMs: VERIFY_TIMEOUT_MS, maxResponseBytes: MAX_VERIFY_RESPONSE_BYTES,
      }, this.options.policy);
      if (response.status < 200 || response.status > 299) throw new Error(`siteverify answered ${response.status}`);
      body = JSON.parse(response.body.toString('utf8'));
    } catch {
      // The provider could not say: neither pass a bot nor blame the visitor.
      throw new ServiceUnavailable('The captcha could not be checked; try again shortly.');
    }
    return typeof body === 'object' && body !== null && (body as { success?: unknown }).success === true;
  }
}
