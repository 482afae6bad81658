import { defineArea } from '../core/area.js';
import { ContactRelationship } from '../entities/contact-relationship.js';
import { RelationshipResolver } from '../resolvers/relationships.js';
import { relationshipRoutes } from '../rest/relationships.js';
import { seedRelationships } from '../services/relationships/relationships.js';

export const relationshipsArea = defineArea({
  name: 'relationships',
  entities: [ContactRelationship],
  resolvers: [RelationshipResolver],
  routes: relationshipRoutes,
  demo: seedRelationships,
});
