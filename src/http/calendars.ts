import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFound } from '../core/errors.js';
import { loadIcal } from '../core/runtime/format-libraries.js';
import { TENANT_KEY_PATTERN } from '../core/values.js';
import { publishedCalendar } from '../services/calendars/calendars.js';
import type { AreaRoutes } from './area-routes.js';

/** How often calendar clients are asked to re-fetch the feed (REFRESH-INTERVAL, X-PUBLISHED-TTL). */
const REFRESH_SECONDS = 3600;
/** How long a cache may keep the feed: short, so unpublishing takes effect within minutes. */
const CACHE_SECONDS = 300;

/**
 * The iCalendar (RFC 5545) feed of a published calendar, public (no credential):
 * `GET /ical/{tenantkey}/{calendarid}.ics`. Served only while the calendar is active, publicly
 * viewable and has iCal publishing enabled; any other calendar, tenant or name is 404, so nothing
 * reveals whether an unpublished calendar exists. The feed holds the calendar's name and
 * description (X-WR-CALNAME, X-WR-CALDESC); events will be added when the documents define them.
 */
export const calendarFeedRoutes: AreaRoutes = {
  operations: [{
    method: 'GET', path: '/ical/{tenantkey}/{calendarid}.ics', authentication: 'none', extension: true,
    pathRules: { tenantkey: { type: 'string', pattern: TENANT_KEY_PATTERN.source }, calendarid: { type: 'string', description: 'A published calendar\'s id; anything else is a 404 (the feed says nothing of what is not published).' } },
    answers: { mediaTypes: ['text/calendar'] },
    summary: 'The iCalendar feed of a published calendar (public; 404 for any calendar not published).',
  }],
  register(server, contextFor) {
    server.get('/ical/:tenantkey/:file', async (request: FastifyRequest<{ Params: { tenantkey: string; file: string } }>, reply: FastifyReply) => {
      const { tenantkey, file } = request.params;
      const id = /^(\d{1,9})\.ics$/i.exec(file)?.[1];
      if (!id || !TENANT_KEY_PATTERN.test(tenantkey.toLowerCase())) throw new NotFound('The calendar feed');
      const ctx = await contextFor(request);
      const published = await publishedCalendar(ctx, tenantkey, Number(id));
      if (!published) throw new NotFound('The calendar feed');
      const { calendar, url } = published;
      // ical-generator writes the calendar-level texts as given: escape them (RFC 5545 3.3.11), or a
      // line break in a description would end the property and could inject components.
      const { default: ical, escape } = await loadIcal();
      const feed = ical({
        prodId: { company: 'membership-api', product: 'calendars' },
        name: escape(calendar.name, false),
        description: calendar.description ? escape(calendar.description, false) : null,
        url,
        ttl: REFRESH_SECONDS,
      });
      return reply
        .code(200)
        .type('text/calendar; charset=utf-8')
        .header('content-disposition', `inline; filename="calendar-${calendar.id}.ics"`)
        .header('cache-control', `public, max-age=${CACHE_SECONDS}`)
        .send(`${feed.toString()}\r\n`); // RFC 5545: every line, END:VCALENDAR too, ends with CRLF
    });
  },
};
