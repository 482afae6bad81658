import type { RouteRow } from './route-table.js';

/**
 * Sign-in takes no credential, so anyone can send it; its bodies are at most ten addresses or one
 * token, far below 4 KiB. A larger limit would only let a sign-in storm make the server hold more.
 */
const SIGN_IN_BODY_LIMIT = 16 * 1024;

export const loginRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/login/aboutme', field: 'Query.aboutMe' },
  { method: 'GET', path: '/api/login/clientauthcheck/{loginid}/{tenantkey}', field: 'Query.clientAuthCheck', emptyResponse: true },
  { method: 'DELETE', path: '/api/login/delete', field: 'Mutation.deleteLogin', emptyResponse: true },
  { method: 'GET', path: '/api/login/logincheck', field: 'Query.loginCheck', emptyResponse: true },
  { method: 'POST', path: '/api/login/requestmagiclink', field: 'Mutation.requestMagicLink', body: 'emails', emptyResponse: true, bodyLimit: SIGN_IN_BODY_LIMIT },
  { method: 'GET', path: '/api/login/securityquestions/lookup', field: 'Query.securityQuestions' },
  {
    method: 'POST', path: '/api/login/magiclink/redeem', field: 'Mutation.redeemMagicLink', body: 'input', extension: true, bodyLimit: SIGN_IN_BODY_LIMIT,
    summary: 'Exchanges the token of a sign-in link for a session token (single use).',
  },
];
