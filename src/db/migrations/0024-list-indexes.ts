import { Migration } from '@mikro-orm/migrations';

export class ListIndexes extends Migration {

  override name = '0024-list-indexes';

  override up(): void | Promise<void> {
    this.addSql(`create index "scheduled_billing_run_record_list_id" on "scheduled_billing_run_record" ("tenant_id", "id" desc);`);

    this.addSql(`create index "saml_service_provider_list_name" on "saml_service_provider" ("tenant_id", "name", "id");`);

    this.addSql(`create index "saleable_item_list_name" on "saleable_item" ("tenant_id", "name", "id");`);

    this.addSql(`create index "provider_callback_list_received_at" on "provider_callback" ("tenant_id", "received_at" desc, "id");`);
    this.addSql(`create index "provider_callback_provider_trgm" on "provider_callback" using gin ("provider" gin_trgm_ops);`);
    this.addSql(`create index "provider_callback_state_trgm" on "provider_callback" using gin ("state" gin_trgm_ops);`);
    this.addSql(`create index "provider_callback_error_trgm" on "provider_callback" using gin ("error" gin_trgm_ops);`);

    this.addSql(`create index "event_list_starts_at" on "event" ("tenant_id", "starts_at" desc, "id");`);
    this.addSql(`create index "event_name_trgm" on "event" using gin ("name" gin_trgm_ops);`);
    this.addSql(`create index "event_venue_trgm" on "event" using gin ("venue" gin_trgm_ops);`);

    this.addSql(`create index "directory_listing_type_list_name" on "directory_listing_type" ("tenant_id", "name", "id");`);

    this.addSql(`create index "directory_list_name" on "directory" ("tenant_id", "name", "id");`);

    this.addSql(`create index "social_feed_list_id" on "social_feed" ("tenant_id", "id" desc);`);
    this.addSql(`create index "social_feed_message_text_trgm" on "social_feed" using gin ("message_text" gin_trgm_ops);`);
    this.addSql(`create index "social_feed_url_trgm" on "social_feed" using gin ("url" gin_trgm_ops);`);

    this.addSql(`create index "social_feed_comment_list_created_at" on "social_feed_comment" ("tenant_id", "created_at", "id");`);
    this.addSql(`create index "social_feed_comment_comment_text_trgm" on "social_feed_comment" using gin ("comment_text" gin_trgm_ops);`);

    this.addSql(`create index "signature_list_name" on "signature" ("tenant_id", "name", "id");`);

    this.addSql(`create index "partner_transaction_log_list_created_at" on "partner_transaction_log" ("tenant_id", "created_at" desc, "id");`);
    this.addSql(`create index "partner_transaction_log_transaction_id_trgm" on "partner_transaction_log" using gin ("transaction_id" gin_trgm_ops);`);
    this.addSql(`create index "partner_transaction_log_operation_trgm" on "partner_transaction_log" using gin ("operation" gin_trgm_ops);`);
    this.addSql(`create index "partner_transaction_log_outcome_trgm" on "partner_transaction_log" using gin ("outcome" gin_trgm_ops);`);
    this.addSql(`create index "partner_transaction_log_reason_trgm" on "partner_transaction_log" using gin ("reason" gin_trgm_ops);`);
    this.addSql(`create index "partner_transaction_log_state_id_trgm" on "partner_transaction_log" using gin ("state_id" gin_trgm_ops);`);

    this.addSql(`create index "partner_affiliation_list_valid_from" on "partner_affiliation" ("tenant_id", "valid_from", "id");`);
    this.addSql(`create index "partner_affiliation_state_id_trgm" on "partner_affiliation" using gin ("state_id" gin_trgm_ops);`);
    this.addSql(`create index "partner_affiliation_affiliation_trgm" on "partner_affiliation" using gin ("affiliation" gin_trgm_ops);`);
    this.addSql(`create index "partner_affiliation_transaction_id_trgm" on "partner_affiliation" using gin ("transaction_id" gin_trgm_ops);`);

    this.addSql(`create index "store_item_list_display_order" on "store_item" ("tenant_id", "display_order", "id");`);

    this.addSql(`create index "document_generation_template_list_name" on "document_generation_template" ("tenant_id", "name", "id");`);

    this.addSql(`create index "report_list_name" on "report" ("tenant_id", "name", "id");`);

    this.addSql(`create index "dashboard_project_list_start_date" on "dashboard_project" ("tenant_id", "start_date" desc, "id");`);
    this.addSql(`create index "dashboard_project_name_trgm" on "dashboard_project" using gin ("name" gin_trgm_ops);`);
    this.addSql(`create index "dashboard_project_description_trgm" on "dashboard_project" using gin ("description" gin_trgm_ops);`);

    this.addSql(`create index "invoice_list_number" on "invoice" ("tenant_id", "number" desc, "id");`);
    this.addSql(`create index "invoice_memo_trgm" on "invoice" using gin ("memo" gin_trgm_ops);`);
    this.addSql(`create index "invoice_source_trgm" on "invoice" using gin ("source" gin_trgm_ops);`);

    this.addSql(`create index "store_order_list_purchase_date" on "store_order" ("tenant_id", "purchase_date" desc, "id");`);
    this.addSql(`create index "store_order_contact_name_trgm" on "store_order" using gin ("contact_name" gin_trgm_ops);`);
    this.addSql(`create index "store_order_email_address_trgm" on "store_order" using gin ("email_address" gin_trgm_ops);`);
    this.addSql(`create index "store_order_notes_trgm" on "store_order" using gin ("notes" gin_trgm_ops);`);
    this.addSql(`create index "store_order_city_trgm" on "store_order" using gin ("city" gin_trgm_ops);`);

    this.addSql(`create index "store_download_purchase_list_created_at" on "store_download_purchase" ("tenant_id", "created_at" desc, "id");`);

    this.addSql(`create index "event_registration_list_id" on "event_registration" ("tenant_id", "id");`);

    this.addSql(`create index "directory_listing_list_updated_at" on "directory_listing" ("tenant_id", "updated_at", "id");`);

    this.addSql(`create index "dashboard_sales_opportunity_list_opened_date" on "dashboard_sales_opportunity" ("tenant_id", "opened_date" desc, "id");`);
    this.addSql(`create index "dashboard_sales_opportunity_name_trgm" on "dashboard_sales_opportunity" using gin ("name" gin_trgm_ops);`);

    this.addSql(`create index "category_list_list_name" on "category_list" ("tenant_id", "name", "id");`);

    this.addSql(`create index "calendar_list_name" on "calendar" ("tenant_id", "name", "id");`);

    this.addSql(`create index "chapter_list_name" on "chapter" ("tenant_id", "name", "id");`);

    this.addSql(`create index "benefit_package_list_name" on "benefit_package" ("tenant_id", "name", "id");`);

    this.addSql(`create index "scheduled_billing_list_next_bill_date" on "scheduled_billing" ("tenant_id", "next_bill_date", "id");`);
    this.addSql(`create index "scheduled_billing_description_trgm" on "scheduled_billing" using gin ("description" gin_trgm_ops);`);

    this.addSql(`create index "terms_of_use_list_name" on "terms_of_use" ("tenant_id", "name", "id");`);

    this.addSql(`create index "terms_user_response_list_action_date" on "terms_user_response" ("tenant_id", "action_date" desc, "id");`);
    this.addSql(`create index "terms_user_response_ip_address_trgm" on "terms_user_response" using gin ("ip_address" gin_trgm_ops);`);
    this.addSql(`create index "terms_user_response_user_agent_trgm" on "terms_user_response" using gin ("user_agent" gin_trgm_ops);`);

    this.addSql(`create index "vendor_list_name" on "vendor" ("tenant_id", "name", "id");`);
    this.addSql(`create index "vendor_name_trgm" on "vendor" using gin ("name" gin_trgm_ops);`);
    this.addSql(`create index "vendor_website_url_trgm" on "vendor" using gin ("website_url" gin_trgm_ops);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "benefit_package_list_name";`);

    this.addSql(`drop index "calendar_list_name";`);

    this.addSql(`drop index "category_list_list_name";`);

    this.addSql(`drop index "chapter_list_name";`);

    this.addSql(`drop index "dashboard_project_list_start_date";`);
    this.addSql(`drop index "dashboard_project_name_trgm";`);
    this.addSql(`drop index "dashboard_project_description_trgm";`);

    this.addSql(`drop index "dashboard_sales_opportunity_list_opened_date";`);
    this.addSql(`drop index "dashboard_sales_opportunity_name_trgm";`);

    this.addSql(`drop index "directory_list_name";`);

    this.addSql(`drop index "directory_listing_list_updated_at";`);

    this.addSql(`drop index "directory_listing_type_list_name";`);

    this.addSql(`drop index "document_generation_template_list_name";`);

    this.addSql(`drop index "event_list_starts_at";`);
    this.addSql(`drop index "event_name_trgm";`);
    this.addSql(`drop index "event_venue_trgm";`);

    this.addSql(`drop index "event_registration_list_id";`);

    this.addSql(`drop index "invoice_list_number";`);
    this.addSql(`drop index "invoice_memo_trgm";`);
    this.addSql(`drop index "invoice_source_trgm";`);

    this.addSql(`drop index "partner_affiliation_list_valid_from";`);
    this.addSql(`drop index "partner_affiliation_state_id_trgm";`);
    this.addSql(`drop index "partner_affiliation_affiliation_trgm";`);
    this.addSql(`drop index "partner_affiliation_transaction_id_trgm";`);

    this.addSql(`drop index "partner_transaction_log_list_created_at";`);
    this.addSql(`drop index "partner_transaction_log_transaction_id_trgm";`);
    this.addSql(`drop index "partner_transaction_log_operation_trgm";`);
    this.addSql(`drop index "partner_transaction_log_outcome_trgm";`);
    this.addSql(`drop index "partner_transaction_log_reason_trgm";`);
    this.addSql(`drop index "partner_transaction_log_state_id_trgm";`);

    this.addSql(`drop index "provider_callback_list_received_at";`);
    this.addSql(`drop index "provider_callback_provider_trgm";`);
    this.addSql(`drop index "provider_callback_state_trgm";`);
    this.addSql(`drop index "provider_callback_error_trgm";`);

    this.addSql(`drop index "report_list_name";`);

    this.addSql(`drop index "saleable_item_list_name";`);

    this.addSql(`drop index "saml_service_provider_list_name";`);

    this.addSql(`drop index "scheduled_billing_list_next_bill_date";`);
    this.addSql(`drop index "scheduled_billing_description_trgm";`);

    this.addSql(`drop index "scheduled_billing_run_record_list_id";`);

    this.addSql(`drop index "signature_list_name";`);

    this.addSql(`drop index "social_feed_list_id";`);
    this.addSql(`drop index "social_feed_message_text_trgm";`);
    this.addSql(`drop index "social_feed_url_trgm";`);

    this.addSql(`drop index "social_feed_comment_list_created_at";`);
    this.addSql(`drop index "social_feed_comment_comment_text_trgm";`);

    this.addSql(`drop index "store_download_purchase_list_created_at";`);

    this.addSql(`drop index "store_item_list_display_order";`);

    this.addSql(`drop index "store_order_list_purchase_date";`);
    this.addSql(`drop index "store_order_contact_name_trgm";`);
    this.addSql(`drop index "store_order_email_address_trgm";`);
    this.addSql(`drop index "store_order_notes_trgm";`);
    this.addSql(`drop index "store_order_city_trgm";`);

    this.addSql(`drop index "terms_of_use_list_name";`);

    this.addSql(`drop index "terms_user_response_list_action_date";`);
    this.addSql(`drop index "terms_user_response_ip_address_trgm";`);
    this.addSql(`drop index "terms_user_response_user_agent_trgm";`);

    this.addSql(`drop index "vendor_list_name";`);
    this.addSql(`drop index "vendor_name_trgm";`);
    this.addSql(`drop index "vendor_website_url_trgm";`);
  }

}
