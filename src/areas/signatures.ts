import { defineArea } from '../core/area.js';
import { Signature } from '../entities/signature.js';
import { SignatureResolver } from '../resolvers/signatures.js';
import { signatureRoutes } from '../rest/signatures.js';
import { seedSignatures } from '../services/signatures/signatures.js';

export const signaturesArea = defineArea({
  name: 'signatures',
  entities: [Signature],
  resolvers: [SignatureResolver],
  routes: signatureRoutes,
  demo: seedSignatures,
});
