import { defineArea } from '../core/area.js';
import { OutboxMessage } from '../entities/outbox.js';
import { emailDeliveryJobs } from '../services/mail/email-delivery.js';

/** Outgoing e-mail: the outbox other areas write to, and the jobs that deliver it (SMTP_URL). */
export const mailArea = defineArea({
  name: 'mail',
  entities: [OutboxMessage],
  jobs: emailDeliveryJobs(),
});
