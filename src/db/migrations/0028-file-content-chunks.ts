import { Migration } from '@mikro-orm/migrations';

/**
 * Contents written as a stream (report results) keep their bytes in pieces, one row each, so
 * that producing and serving them never holds the whole file (`storage = 'chunks'`). The pieces
 * go with their content (ON DELETE CASCADE).
 */
export class FileContentChunks extends Migration {

  override name = '0028-file-content-chunks';

  override up(): void | Promise<void> {
    this.addSql(`create table "file_content_chunk" ("content_id" int not null, "seq" int not null, "bytes" bytea not null, constraint "file_content_chunk_pkey" primary key ("content_id", "seq"));`);
    this.addSql(`alter table "file_content_chunk" add constraint "file_content_chunk_content_id_foreign" foreign key ("content_id") references "file_content" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "file_content_chunk";`);
  }

}
