import { defineArea } from '../core/area.js';
import {
  Event, EventCaptchaSetting, EventGroup, EventGroupMember, EventInvitation, EventOffering, EventPurchase,
  EventRegistration, EventRegistrationOrder, EventRegistrationType, EventSession,
} from '../entities/event.js';
import { EventResolver } from '../resolvers/events.js';
import { eventRoutes } from '../rest/events.js';
import { seedEvents } from '../services/events/events.js';
import { markRegistrationOrderPaid } from '../services/events/registration-changes.js';

/** Events: staff event management (GraphQL), public registration, table groups and goal widgets. */
export const eventsArea = defineArea({
  name: 'events',
  entities: [
    Event, EventSession, EventRegistrationType, EventOffering, EventRegistrationOrder, EventRegistration,
    EventPurchase, EventInvitation, EventGroup, EventGroupMember, EventCaptchaSetting,
  ],
  resolvers: [EventResolver],
  routes: eventRoutes,
  demo: seedEvents,
  paidInvoiceSources: { 'event-registration': markRegistrationOrderPaid },
});
