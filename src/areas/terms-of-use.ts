import { defineArea } from '../core/area.js';
import { TermsOfUse, TermsOfUseText, TermsUserResponse } from '../entities/terms-of-use.js';
import { TermsOfUseResolver } from '../resolvers/terms-of-use.js';
import { termsOfUseRoutes } from '../rest/terms-of-use.js';
import { seedTermsOfUse } from '../services/terms-of-use/terms-of-use.js';

export const termsOfUseArea = defineArea({
  name: 'terms-of-use',
  entities: [TermsOfUse, TermsOfUseText, TermsUserResponse],
  resolvers: [TermsOfUseResolver],
  routes: termsOfUseRoutes,
  demo: seedTermsOfUse,
});
