import { defineArea } from '../core/area.js';
import { BenefitPackage } from '../entities/benefit-package.js';
import { BenefitPackageResolver } from '../resolvers/benefit-packages.js';
import { benefitPackageRoutes } from '../rest/benefit-packages.js';
import { seedBenefitPackages } from '../services/benefit-packages/benefit-packages.js';

export const benefitPackagesArea = defineArea({
  name: 'benefit-packages',
  entities: [BenefitPackage],
  resolvers: [BenefitPackageResolver],
  routes: benefitPackageRoutes,
  demo: seedBenefitPackages,
});
