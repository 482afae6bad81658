import { defineArea } from '../core/area.js';
import { SamlServiceProvider } from '../entities/saml-service-provider.js';
import { samlServiceProviderDownloadRoutes } from '../http/saml-service-providers.js';
import { SamlServiceProviderResolver } from '../resolvers/saml-service-providers.js';
import { samlServiceProviderRoutes } from '../rest/saml-service-providers.js';
import { seedSamlServiceProviders } from '../services/saml-service-providers/saml-service-providers.js';

export const samlServiceProvidersArea = defineArea({
  name: 'saml-service-providers',
  entities: [SamlServiceProvider],
  resolvers: [SamlServiceProviderResolver],
  routes: samlServiceProviderRoutes,
  rawRoutes: [samlServiceProviderDownloadRoutes],
  demo: seedSamlServiceProviders,
});
