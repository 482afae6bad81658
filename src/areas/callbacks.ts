import { defineArea } from '../core/area.js';
import { CallbackSecret, EmailEvent, MeetingEvent, ProviderCallback } from '../entities/callback.js';
import { callbackRoutes } from '../http/callbacks.js';
import { CallbackResolver } from '../resolvers/callbacks.js';
import { callbackJobs } from '../services/callbacks/callback-processing.js';
import { seedCallbacks } from '../services/callbacks/callbacks.js';

/** Inbound provider callbacks: signed, stored, acknowledged, processed by jobs. */
export const callbacksArea = defineArea({
  name: 'callbacks',
  entities: [CallbackSecret, ProviderCallback, EmailEvent, MeetingEvent],
  resolvers: [CallbackResolver],
  rawRoutes: [callbackRoutes],
  jobs: callbackJobs(),
  demo: seedCallbacks,
});
