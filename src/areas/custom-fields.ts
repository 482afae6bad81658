import { defineArea } from '../core/area.js';
import { CustomField } from '../entities/custom-field.js';
import { CustomFieldResolver } from '../resolvers/custom-fields.js';
import { customFieldRoutes } from '../rest/custom-fields.js';
import { seedCustomFields } from '../services/custom-fields/custom-fields.js';

/** Custom fields per tenant on people, organizations and memberships (issue 38); their values live on `contact` and `membership`. */
export const customFieldsArea = defineArea({
  name: 'custom-fields',
  entities: [CustomField],
  resolvers: [CustomFieldResolver],
  routes: customFieldRoutes,
  demo: seedCustomFields,
});
