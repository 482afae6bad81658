import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { Conflict, NotFound } from '../../core/errors.js';
import { loadXmlBuilder } from '../../core/runtime/format-libraries.js';
import { leanRows } from '../../core/data/lean-read.js';
import { listQuery, parseListOptions, defineList } from '../../core/data/list-query.js';
import { deleteRecord, inTransaction, readOr404, updateRecord } from '../../core/data/records.js';
import { SamlServiceProvider } from '../../entities/saml-service-provider.js';
import { Tenant } from '../../entities/tenant.js';
import { lookupChoices, rowActions, type ListOptionsInput, type LookupChoiceInt } from '../../schema/common.js';
import { SamlServiceProviderAddEdit, SamlServiceProviderCollectionItem, type SamlServiceProviderAddEditInput } from '../../schema/saml-service-providers.js';

/*
 * Defaults (the documents only give Name and ServiceProviderName): a provider without an explicit
 * entity id or assertion consumer service URL uses addresses derived from the tenant and the
 * record id, computed when read, so they follow the tenant's address:
 *   tenant address  https://<tenant domain>, or <public base URL>/tenants/<tenant key> without a domain
 *   EntityId        <tenant address>/saml/serviceproviders/<id>
 *   ACS URL         <tenant address>/saml/serviceproviders/<id>/acs
 */

const providerList = defineList(SamlServiceProvider, {
  operations: ['Query.samlServiceProviders'],
  orderBy: { Name: 'name', Id: 'id', SamlServiceProviderId: 'id', ServiceProviderName: 'serviceProviderName' },
  defaultOrder: 'Name',
  search: ['name', 'serviceProviderName', 'entityId'],
});

const PROVIDER_FIELDS = ['id', 'name', 'serviceProviderName', 'entityId', 'assertionConsumerServiceUrl'] as const;
type ProviderRow = Pick<SamlServiceProvider, (typeof PROVIDER_FIELDS)[number]>;

export const SAML_METADATA_CONTENT_TYPE = 'application/samlmetadata+xml';
const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const MDUI = 'urn:oasis:names:tc:SAML:metadata:ui';

/** The list, as the documented QueryableDescriptor items: LookupChoiceInt-shaped, ServiceProviderName in ExtraData. */
const NOUN = 'The SAML service provider';

export async function listSamlServiceProviders(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<LookupChoiceInt[]> {
  const list = parseListOptions(options, providerList);
  const { rows } = await listQuery(ctx, SamlServiceProvider, providerList, list, { fields: ['id', 'name', 'serviceProviderName'] });
  return lookupChoices(rows.map((row) => ({ id: row.id, name: row.name, extraData: row.serviceProviderName })), list.skip);
}

export async function getSamlServiceProvider(ctx: RequestContext, id: number): Promise<SamlServiceProviderAddEdit> {
  return toAddEdit(await readProvider(ctx, id), await tenantAddress(ctx));
}

/**
 * Create-or-update: SamlServiceProviderId 0 or absent creates, an existing id updates, an unknown
 * id is 404. EntityId / AssertionConsumerServiceUrl: absent or null keeps the stored value (the
 * default on create), an empty string returns to the derived default.
 */
export async function saveSamlServiceProvider(ctx: RequestContext, input: SamlServiceProviderAddEditInput): Promise<SamlServiceProviderCollectionItem> {
  const fields: Pick<SamlServiceProvider, 'name' | 'serviceProviderName'> & Partial<Pick<SamlServiceProvider, 'entityId' | 'assertionConsumerServiceUrl'>> = {
    name: input.Name.trim(),
    serviceProviderName: input.ServiceProviderName.trim(),
  };
  if (input.EntityId !== undefined && input.EntityId !== null) fields.entityId = input.EntityId.trim() || null;
  if (input.AssertionConsumerServiceUrl !== undefined && input.AssertionConsumerServiceUrl !== null) {
    fields.assertionConsumerServiceUrl = input.AssertionConsumerServiceUrl.trim() || null;
  }
  const id = input.SamlServiceProviderId;
  if (id) {
    // One UPDATE, which must still find the row (404); the unique index refuses a taken EntityId.
    // In a transaction of its own (a savepoint inside a key's), so that the refusal can still be explained with a query.
    await inTransaction(ctx, () => updateRecord(ctx, SamlServiceProvider, id, fields, NOUN)).catch(async (error: unknown) => {
      if (error instanceof UniqueConstraintViolationException && fields.entityId) await assertEntityIdFree(ctx, fields.entityId, id);
      throw error;
    });
    return toCollectionItem(ctx, { id, name: fields.name });
  }
  if (fields.entityId) await assertEntityIdFree(ctx, fields.entityId, undefined);
  const provider = ctx.em.create(SamlServiceProvider, { tenant: ctx.tenantId, entityId: null, assertionConsumerServiceUrl: null, ...fields });
  await ctx.em.persist(provider).flush();
  return toCollectionItem(ctx, provider);
}

/** Deletes a provider and answers it as it was; of concurrent deletes one succeeds, the others are 404. */
export async function deleteSamlServiceProvider(ctx: RequestContext, id: number): Promise<SamlServiceProviderAddEdit> {
  const deleted = toAddEdit(await readProvider(ctx, id), await tenantAddress(ctx));
  await deleteRecord(ctx, SamlServiceProvider, id, null, NOUN);
  return deleted;
}

export interface MetadataFile {
  fileName: string;
  xml: string;
}

/** The provider's SAML 2.0 metadata document (an md:EntityDescriptor with one SPSSODescriptor). */
export async function samlServiceProviderMetadata(ctx: RequestContext, id: number): Promise<MetadataFile> {
  const [row, address] = await Promise.all([readProvider(ctx, id), tenantAddress(ctx)]);
  const provider = toAddEdit(row, address);
  // Characters XML 1.0 cannot carry (control characters) become U+FFFD instead of failing.
  const create = await loadXmlBuilder();
  const doc = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '\uFFFD' })
    .ele(MD, 'md:EntityDescriptor', { entityID: provider.EntityId });
  const sp = doc.ele(MD, 'md:SPSSODescriptor', {
    AuthnRequestsSigned: 'false',
    WantAssertionsSigned: 'true',
    protocolSupportEnumeration: 'urn:oasis:names:tc:SAML:2.0:protocol',
  });
  sp.ele(MD, 'md:Extensions')
    .ele(MDUI, 'mdui:UIInfo')
    .ele(MDUI, 'mdui:DisplayName', { 'xml:lang': 'en' }).txt(row.serviceProviderName);
  sp.ele(MD, 'md:NameIDFormat').txt('urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress');
  sp.ele(MD, 'md:AssertionConsumerService', {
    Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
    Location: provider.AssertionConsumerServiceUrl,
    index: '0',
    isDefault: 'true',
  });
  const org = doc.ele(MD, 'md:Organization');
  org.ele(MD, 'md:OrganizationName', { 'xml:lang': 'en' }).txt(address.tenantName);
  org.ele(MD, 'md:OrganizationDisplayName', { 'xml:lang': 'en' }).txt(address.tenantName);
  org.ele(MD, 'md:OrganizationURL', { 'xml:lang': 'en' }).txt(address.base);
  return { fileName: metadataFileName(row), xml: doc.end({ prettyPrint: true }) };
}

/** `<ServiceProviderName as a slug>-metadata.xml`, ASCII only; `saml-service-provider-<id>-metadata.xml` when nothing is left. */
function metadataFileName(row: ProviderRow): string {
  const slug = row.serviceProviderName.normalize('NFKD').replace(/[^\w\s-]/g, '').trim().replace(/[\s_-]+/g, '-').toLowerCase().slice(0, 80).replace(/-+$/, '');
  return `${slug || `saml-service-provider-${row.id}`}-metadata.xml`;
}

function readProvider(ctx: RequestContext, id: number): Promise<ProviderRow> {
  return readOr404(ctx, SamlServiceProvider, PROVIDER_FIELDS, id, NOUN);
}

/** 409 naming EntityId when another provider of the tenant has it (the unique index catches races). */
async function assertEntityIdFree(ctx: RequestContext, entityId: string, ownId: number | undefined): Promise<void> {
  const [taken] = await leanRows(ctx.reader, SamlServiceProvider, {
    fields: ['id'],
    where: { entityId, ...(ownId ? { id: { $ne: ownId } } : {}) },
    limit: 1,
  });
  if (taken) {
    throw new Conflict(`Another SAML service provider (${taken.id}) has this EntityId.`, [{ field: 'EntityId', message: 'is used by another service provider' }]);
  }
}

interface TenantAddress {
  base: string;
  tenantName: string;
}

/** The caller's tenant's address, from which the default URLs are derived (one batched read per request). */
async function tenantAddress(ctx: RequestContext): Promise<TenantAddress> {
  const tenant = await ctx.loaders.byId(Tenant).load(ctx.tenantId);
  if (!tenant) throw new NotFound('The tenant');
  const base = tenant.domain ? `https://${tenant.domain}` : `${ctx.app.publicBaseUrl}/tenants/${encodeURIComponent(tenant.key)}`;
  return { base, tenantName: tenant.name };
}

function toAddEdit(row: ProviderRow, address: TenantAddress): SamlServiceProviderAddEdit {
  const derived = `${address.base}/saml/serviceproviders/${row.id}`;
  return {
    SamlServiceProviderId: row.id,
    Name: row.name,
    ServiceProviderName: row.serviceProviderName,
    EntityId: row.entityId ?? derived,
    AssertionConsumerServiceUrl: row.assertionConsumerServiceUrl ?? `${derived}/acs`,
  };
}

function toCollectionItem(ctx: RequestContext, provider: Pick<SamlServiceProvider, 'id' | 'name'>): SamlServiceProviderCollectionItem {
  return { SamlServiceProviderId: provider.id, Name: provider.name, Actions: ctx.isStaff ? [...rowActions(true), 'Download'] : [] };
}

/** A demo service provider for a new tenant (its EntityId and ACS URL derived from the tenant). */
export async function seedSamlServiceProviders(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  em.create(SamlServiceProvider, { tenant, name: `${marker}Learning portal`, serviceProviderName: `${marker}Acme LMS`, entityId: null, assertionConsumerServiceUrl: null });
  await em.flush();
}
