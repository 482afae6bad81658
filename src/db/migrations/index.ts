import type { MigrationObject } from '@mikro-orm/core';
import { InitialSchema } from './0001-initial.js';
import { CallbacksSchema } from './0007-callbacks.js';

/**
 * Every migration, oldest first. `npm run cli -- migration create` writes a new file here from
 * the difference between the entities and the database; rename it with the next number and
 * add it to this list.
 */
export const migrations: MigrationObject[] = [
  { name: '0001-initial', class: InitialSchema },
  { name: '0007-callbacks', class: CallbacksSchema },
];
