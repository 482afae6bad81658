import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { Versioned } from './base.js';
import { StoredFile } from './file.js';

/**
 * A document generation template: a DOCX file (kept by the file service, purpose
 * `document-templates`) used to generate documents of one document generation type.
 * Copies share the file (files never change), which is released when no template uses it.
 */
@Entity()
@Index({ properties: ['tenant', 'documentGenerationTypeId'] })
export class DocumentGenerationTemplate extends Versioned {
  @Property({ length: 32 })
  documentGenerationTypeId!: string;

  @Property({ length: 200 })
  name!: string;

  @ManyToOne(() => StoredFile, { nullable: true, index: true })
  file: StoredFile | null = null;
}
