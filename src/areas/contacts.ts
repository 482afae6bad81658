import { defineArea } from '../core/area.js';
import { ContactResolver } from '../resolvers/contacts.js';
import { contactRoutes } from '../rest/contacts.js';
import { seedContacts } from '../services/contacts/contacts.js';

/** People and organizations as staff manage them (the Contact entity is registered by the login area, which every area needs). */
export const contactsArea = defineArea({
  name: 'contacts',
  resolvers: [ContactResolver],
  routes: contactRoutes,
  demo: seedContacts,
});
