import type { RequestContext } from '../../core/context.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import type { ImportDownload } from '../../schema/imports.js';
import type { CustomFieldValues } from '../../entities/custom-field.js';
import { customFieldCell } from '../custom-fields/values.js';
import { contactListCells, type ContactLists } from './contact-lists.js';
import { customFieldColumn, exportCell, IMPORT_FIELDS } from './columns.js';
import { CSV_MEDIA_TYPE, customFieldColumns, customFieldSets } from './imports.js';

/*
 * The contact export: every live contact of the tenant — organizations first, so that a file
 * re-imported elsewhere meets an organization before the people who name it — one row per
 * membership term (a contact without terms: one row), in exactly the columns an import takes
 * (columns.ts). Read in keyset pages of contacts and written as they come: memory holds one page.
 */

const PAGE_CONTACTS = 500;

export function contactExportCsv(_ctx: RequestContext): Promise<ImportDownload> {
  return Promise.resolve({ FileName: 'contacts.csv', MediaType: CSV_MEDIA_TYPE, Url: '/api/exports/contacts' });
}

type ExportRow = Record<string, string | number | null>;

/** The export's rows, the header row first. */
export async function* contactExportRows(ctx: RequestContext): AsyncGenerator<string[]> {
  const sets = await customFieldSets(ctx);
  const customColumns = customFieldColumns(sets).map((column) => column.field);
  yield [...IMPORT_FIELDS, ...customColumns];
  /** A record's custom-field cells, in the column order, by customFieldCell (the text form an import reads back). */
  const customCells = (kind: 'person' | 'organization', contactValues: CustomFieldValues, termValues: CustomFieldValues | null) => customColumns.map((column) => {
    const target = customFieldColumn(column, kind) !== null ? kind : 'membership';
    const key = customFieldColumn(column, target)!;
    const field = sets[target].find((definition) => definition.key === key);
    const value = (target === 'membership' ? termValues : contactValues)?.[key];
    return field && value !== undefined ? exportCell(customFieldCell.format(field, value)) : '';
  });
  const sql = tenantSql(ctx);
  for (const kind of ['organization', 'person']) {
    for (let after = 0; ;) {
      const rows = await sql.all<ExportRow & ContactLists & { contact_id: number; contact_custom_fields: CustomFieldValues; membership_custom_fields: CustomFieldValues | null }>(
        `select c.id as contact_id, x.external_id, c.kind, c.national_id, c.first_name, c.last_name, c.name, c.email, c.phone, c.mobile_phone, c.job_title,
                c.prefix, c.middle_name, c.suffix, c.title, c.addresses, c.websites,
                o.name as organization, r.role as organization_role, t.name as membership_type, l.name as membership_level, m.status as membership_status,
                m.join_date::text as membership_join_date, m.start_date::text as membership_start_date, m.end_date::text as membership_end_date,
                c.custom_fields as contact_custom_fields, m.custom_fields as membership_custom_fields
           from (select * from contact c where ${tenantIs('c')} and c.deleted_at is null and c.kind = ? and c.id > ? order by c.id limit ${PAGE_CONTACTS}) c
           left join contact_external_id x on x.contact_id = c.id and ${tenantIs('x')}
           left join contact o on o.id = c.organization_id and ${tenantIs('o')} and o.deleted_at is null
           left join contact_relationship r on r.person_id = c.id and r.organization_id = o.id and ${tenantIs('r')}
           left join membership m on m.contact_id = c.id and ${tenantIs('m')}
           left join membership_type t on t.id = m.membership_type_id and ${tenantIs('t')}
           left join membership_level l on l.id = m.membership_level_id and ${tenantIs('l')}
          order by c.id, m.start_date, m.id`, [kind, after]);
      for (const row of rows) {
        yield [
          String(row.contact_id), ...[
            row.external_id, row.kind, row.national_id, row.first_name, row.last_name, row.name, row.email, row.phone, row.mobile_phone, row.job_title,
            row.prefix, row.middle_name, row.suffix, row.title, ...contactListCells(row),
            row.organization, row.organization_role, row.membership_type, row.membership_level, row.membership_status,
            row.membership_join_date, row.membership_start_date, row.membership_end_date,
          ].map((value) => exportCell(value === null ? null : String(value))),
          ...customCells(kind as 'person' | 'organization', row.contact_custom_fields, row.membership_custom_fields),
        ];
      }
      if (rows.length === 0) break;
      after = rows[rows.length - 1].contact_id;
      if (new Set(rows.map((row) => row.contact_id)).size < PAGE_CONTACTS) break;
    }
  }
}
