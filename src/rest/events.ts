import type { RouteRow } from './route-table.js';

/** Public event registration answers PublicApiResponse, failures included (`publicApiResponse`); determinebillingcontact answers BillingContactInfo. */
export const eventRoutes: RouteRow[] = [
  { method: 'POST', path: '/api/public/events/decline/invitation/{id}/{contactid}', field: 'Mutation.declineEventInvitation', publicApiResponse: true },
  { method: 'POST', path: '/api/public/events/determinebillingcontact', field: 'Mutation.determineBillingContact', body: 'input' },
  { method: 'GET', path: '/api/public/events/getenv/{id}/{contactid=null}/{regid=null}', field: 'Query.eventRegistrationEnvironment', publicApiResponse: true },
  { method: 'POST', path: '/api/public/events/register/{id}', field: 'Mutation.registerEventAttendees', body: 'input', publicApiResponse: true },
  { method: 'POST', path: '/api/public/events/register_v2/{id}', field: 'Mutation.registerForEvent', body: 'input', publicApiResponse: true },
  { method: 'POST', path: '/api/public/events/splits/{id}', field: 'Mutation.eventRegistrationSplits', body: 'input', publicApiResponse: true },
  { method: 'POST', path: '/api/public/events/submit/{id}', field: 'Mutation.submitEventRegistration', body: 'input', publicApiResponse: true },
  { method: 'POST', path: '/api/public/events/validate/{id}', field: 'Mutation.validateEventRegistration', body: 'input', publicApiResponse: true },

  { method: 'GET', path: '/api/eventgroups/events/{eventid}', field: 'Query.eventTableManagement' },
  { method: 'POST', path: '/api/eventgroups/groups/{eventgroupid}', field: 'Mutation.saveEventGroup', body: 'input' },
  { method: 'DELETE', path: '/api/eventgroups/groups/{eventgroupid}', field: 'Mutation.deleteEventGroup' },
  { method: 'POST', path: '/api/eventgroups/groups/{eventgroupid}/members', field: 'Mutation.setEventGroupMembers', body: 'input', emptyResponse: true },
  { method: 'GET', path: '/api/eventgroups/groups/{eventid}/{eventgroupid}', field: 'Query.eventGroup' },

  { method: 'GET', path: '/api/eventwidgets/{eventid}/goals/attendee', field: 'Query.eventAttendeeGoalWidget' },
  { method: 'GET', path: '/api/eventwidgets/{eventid}/goals/attendeerevenue', field: 'Query.eventAttendeeRevenueGoalWidget' },
  { method: 'GET', path: '/api/eventwidgets/{eventid}/goals/exhibitor', field: 'Query.eventExhibitorGoalWidget' },
  { method: 'GET', path: '/api/eventwidgets/{eventid}/goals/exhibitorrevenue', field: 'Query.eventExhibitorRevenueGoalWidget' },
  { method: 'GET', path: '/api/eventwidgets/{eventid}/goals/sponsor', field: 'Query.eventSponsorGoalWidget' },
  { method: 'GET', path: '/api/eventwidgets/{eventid}/goals/sponsorrevenue', field: 'Query.eventSponsorRevenueGoalWidget' },

  { method: 'GET', path: '/api/eventregistrations/{eventregistrationid}', field: 'Query.eventRegistration', extension: true, summary: 'One attendee\'s event registration with its order and invoice state, staff only.' },
  { method: 'POST', path: '/api/eventregistrations/{eventregistrationid}', field: 'Mutation.saveEventRegistration', body: 'input', extension: true, summary: 'Registers an attendee (0) or changes a registration\'s type (seats move) and attendee details, staff only.' },
  {
    method: 'POST', path: '/api/eventregistrations/{eventregistrationid}/cancel', field: 'Mutation.cancelEventRegistration', body: 'input', extension: true,
    summary: 'Cancels a registration or its whole order: seats released, invoice credited or refunded and voided, staff only.',
  },
];
